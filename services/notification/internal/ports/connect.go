// Package ports serves the notification RPCs (Connect, gRPC, gRPC-Web; REST
// through the gateway) and turns other services' events into use-case calls.
package ports

import (
	"context"
	"errors"
	"strconv"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/gen/notification/v1/notificationv1connect"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/internal/wire"
)

// Handler implements notificationv1connect.NotificationServiceHandler.
type Handler struct {
	notificationv1connect.UnimplementedNotificationServiceHandler
	app *app.App
}

// NewHandler returns the handler.
func NewHandler(a *app.App) *Handler { return &Handler{app: a} }

// rpcErr converts a use-case error; a rate limit also says when to try
// again (Retry-After, which the gateway passes on for REST).
func rpcErr(err error) error {
	var rl *domain.RateLimited
	if errors.As(err, &rl) {
		ce := apperr.ToConnect(err)
		ce.Meta().Set("Retry-After", strconv.Itoa(rl.RetryAfterSeconds()))
		return ce
	}
	return err
}

// ListNotifications is GET /bell/notifications.
func (h *Handler) ListNotifications(ctx context.Context, req *connect.Request[notificationv1.ListNotificationsRequest]) (*connect.Response[notificationv1.ListNotificationsResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	l, err := h.app.List(ctx, uid, domain.ListFilter{IsRead: m.IsRead, Category: m.GetCategory()},
		domain.Page{Number: int(m.GetPage()), Size: int(m.GetPerPage())})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.ListNotificationsResponse{
		Notifications: wire.Notifications(l.Items), Total: int32(l.Total), UnreadCount: int32(l.Unread)}), nil
}

// GetUnreadCount is GET /bell/notifications/unread-count.
func (h *Handler) GetUnreadCount(ctx context.Context, _ *connect.Request[notificationv1.GetUnreadCountRequest]) (*connect.Response[notificationv1.GetUnreadCountResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	n, err := h.app.UnreadCount(ctx, uid)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.GetUnreadCountResponse{UnreadCount: int32(n)}), nil
}

// MarkRead is PATCH /bell/notifications/{id}/read.
func (h *Handler) MarkRead(ctx context.Context, req *connect.Request[notificationv1.MarkReadRequest]) (*connect.Response[notificationv1.MarkReadResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	n, count, err := h.app.MarkRead(ctx, uid, req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.MarkReadResponse{
		Message: "Notification marked as read", Notification: wire.Notification(n), UnreadCount: int32(count)}), nil
}

// MarkAllRead is PATCH /bell/notifications/mark-all-read.
func (h *Handler) MarkAllRead(ctx context.Context, _ *connect.Request[notificationv1.MarkAllReadRequest]) (*connect.Response[notificationv1.MarkAllReadResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	n, err := h.app.MarkAllRead(ctx, uid)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.MarkAllReadResponse{Message: "All notifications marked as read", UpdatedCount: int32(n)}), nil
}

// DeleteNotification is DELETE /bell/notifications/{id}.
func (h *Handler) DeleteNotification(ctx context.Context, req *connect.Request[notificationv1.DeleteNotificationRequest]) (*connect.Response[notificationv1.DeleteNotificationResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.Delete(ctx, uid, req.Msg.GetId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.DeleteNotificationResponse{Message: "Notification deleted"}), nil
}

// ClearNotifications is DELETE /bell/notifications/all/clear.
func (h *Handler) ClearNotifications(ctx context.Context, req *connect.Request[notificationv1.ClearNotificationsRequest]) (*connect.Response[notificationv1.ClearNotificationsResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	f := domain.ClearFilter{Archive: m.GetArchiveAll(), IDs: m.GetNotificationIds(), Category: m.GetCategory(), IsRead: m.IsRead}
	if m.OlderThanDays != nil {
		d := int(m.GetOlderThanDays())
		f.OlderThanDays = &d
	}
	n, err := h.app.Clear(ctx, uid, f)
	if err != nil {
		return nil, err
	}
	msg := "Notifications cleared"
	if f.Archive {
		msg = "Notifications archived"
	}
	return connect.NewResponse(&notificationv1.ClearNotificationsResponse{Message: msg, DeletedCount: int32(n)}), nil
}

// CreateTestNotification is POST /bell/notifications/test.
func (h *Handler) CreateTestNotification(ctx context.Context, _ *connect.Request[notificationv1.CreateTestNotificationRequest]) (*connect.Response[notificationv1.CreateTestNotificationResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	ns, err := h.app.CreateTest(ctx, uid, 0)
	if err != nil {
		return nil, rpcErr(err)
	}
	out := &notificationv1.CreateTestNotificationResponse{Message: "Test notification created"}
	if len(ns) > 0 {
		out.Notification = wire.Notification(ns[0])
	}
	return connect.NewResponse(out), nil
}

// CreateTestNotifications is POST /bell/notifications/test-multiple?count=.
func (h *Handler) CreateTestNotifications(ctx context.Context, req *connect.Request[notificationv1.CreateTestNotificationsRequest]) (*connect.Response[notificationv1.CreateTestNotificationsResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	count := int(req.Msg.GetCount())
	if count < 1 {
		return nil, domain.ErrInvalidCount
	}
	ns, err := h.app.CreateTest(ctx, uid, count)
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&notificationv1.CreateTestNotificationsResponse{
		Message: "Test notifications created", Notifications: wire.Notifications(ns)}), nil
}

func settingsPB(s domain.Settings) *notificationv1.NotificationSettings {
	return &notificationv1.NotificationSettings{
		BellEnabled: s.BellEnabled, EmailEnabled: s.EmailEnabled, EmailDigest: s.EmailDigest,
		LineEnabled: s.LineEnabled, LineUserId: s.LineUserID, NotifyAnnouncements: s.NotifyAnnouncements,
		NotifySearchMatches: s.NotifySearchMatches, NotifyPayments: s.NotifyPayments, NotifyDeadlines: &s.NotifyDeadlines,
	}
}

// GetNotificationSettings is GET /notification-settings.
func (h *Handler) GetNotificationSettings(ctx context.Context, _ *connect.Request[notificationv1.GetNotificationSettingsRequest]) (*connect.Response[notificationv1.GetNotificationSettingsResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.app.Settings(ctx, uid)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.GetNotificationSettingsResponse{Settings: settingsPB(s)}), nil
}

// UpdateNotificationSettings is PUT /notification-settings.
func (h *Handler) UpdateNotificationSettings(ctx context.Context, req *connect.Request[notificationv1.UpdateNotificationSettingsRequest]) (*connect.Response[notificationv1.UpdateNotificationSettingsResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	in := req.Msg.GetSettings()
	if in == nil {
		return nil, domain.ErrInvalidSettings
	}
	next := domain.Settings{
		BellEnabled: in.GetBellEnabled(), EmailEnabled: in.GetEmailEnabled(), EmailDigest: in.GetEmailDigest(),
		LineEnabled: in.GetLineEnabled(), LineUserID: in.GetLineUserId(), NotifyAnnouncements: in.GetNotifyAnnouncements(),
		NotifySearchMatches: in.GetNotifySearchMatches(), NotifyPayments: in.GetNotifyPayments(),
	}
	if in.NotifyDeadlines != nil {
		next.NotifyDeadlines = in.GetNotifyDeadlines()
	} else {
		// a client that predates the switch keeps the user's choice
		cur, err := h.app.Settings(ctx, uid)
		if err != nil {
			return nil, err
		}
		next.NotifyDeadlines = cur.NotifyDeadlines
	}
	s, err := h.app.PutSettings(ctx, uid, next)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&notificationv1.UpdateNotificationSettingsResponse{Message: "Notification settings updated", Settings: settingsPB(s)}), nil
}

func webhookPB(w domain.Webhook) *notificationv1.Webhook {
	return &notificationv1.Webhook{Url: w.URL, CreatedAt: timestamppb.New(w.CreatedAt), SecretHint: w.SecretHint()}
}

// SetWebhook is PUT /notification-settings/webhook.
func (h *Handler) SetWebhook(ctx context.Context, req *connect.Request[notificationv1.SetWebhookRequest]) (*connect.Response[notificationv1.SetWebhookResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	w, err := h.app.SetWebhook(ctx, uid, req.Msg.GetUrl())
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&notificationv1.SetWebhookResponse{Webhook: webhookPB(w), Secret: w.Secret}), nil
}

// DeleteWebhook is DELETE /notification-settings/webhook.
func (h *Handler) DeleteWebhook(ctx context.Context, _ *connect.Request[notificationv1.DeleteWebhookRequest]) (*connect.Response[notificationv1.DeleteWebhookResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.DeleteWebhook(ctx, uid); err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&notificationv1.DeleteWebhookResponse{Message: "Webhook removed"}), nil
}

// GetWebhook is GET /notification-settings/webhook: the webhook and its delivery log.
func (h *Handler) GetWebhook(ctx context.Context, _ *connect.Request[notificationv1.GetWebhookRequest]) (*connect.Response[notificationv1.GetWebhookResponse], error) {
	uid, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	w, ok, log, err := h.app.Webhook(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := &notificationv1.GetWebhookResponse{Deliveries: make([]*notificationv1.WebhookDelivery, 0, len(log))}
	if ok {
		out.Webhook = webhookPB(w)
	}
	for _, d := range log {
		pd := &notificationv1.WebhookDelivery{
			DeliveryId: strconv.FormatInt(d.ID, 10), NotificationId: d.NotificationID, Title: d.Title, Status: d.Status,
			Attempts: int32(d.Attempts), LastStatusCode: int32(d.LastStatusCode), LastError: d.LastError,
			CreatedAt: timestamppb.New(d.CreatedAt),
		}
		if d.Status == "pending" {
			pd.NextAttemptAt = timestamppb.New(d.NextAttemptAt)
		}
		if d.SentAt != nil {
			pd.SentAt = timestamppb.New(*d.SentAt)
		}
		out.Deliveries = append(out.Deliveries, pd)
	}
	return connect.NewResponse(out), nil
}
