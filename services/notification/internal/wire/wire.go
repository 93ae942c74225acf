// Package wire converts notifications to their protobuf form, shared by the
// RPC answers and the events the realtime service pushes, so a socket frame
// and a REST row never differ.
package wire

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/services/notification/internal/domain"
)

// Notification is n in its protobuf form.
func Notification(n domain.Notification) *notificationv1.Notification {
	out := &notificationv1.Notification{
		Id: n.ID, Title: n.Title, Message: n.Message, Category: n.Category, Priority: n.Priority,
		IsRead: n.IsRead, Type: n.Type, ProjectId: n.ProjectID, Link: n.Link, ProjectIds: n.ProjectIDs,
		CreatedAt: timestamppb.New(n.Created),
	}
	if n.ReadAt != nil {
		out.ReadAt = timestamppb.New(*n.ReadAt)
	}
	return out
}

// Notifications converts a list.
func Notifications(ns []domain.Notification) []*notificationv1.Notification {
	out := make([]*notificationv1.Notification, len(ns))
	for i, n := range ns {
		out[i] = Notification(n)
	}
	return out
}
