import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { errorMessage } from "@/lib/errors";
import {
  NotificationService,
  type Notification,
  type NotificationSettings,
} from "@/gen/notification/v1/notification_pb";
import { toast } from "@/stores/toast-store";
import { th, type MessageKey } from "@/i18n/th";

const bell = () => getClient(NotificationService);

const keys = queryKeys.notifications;

export type ListFilter = { page: number; perPage: number; category: string; isRead?: boolean };

/** The unread count of the bell (always computed by the server from the rows). */
export function useUnreadCount(enabled: boolean) {
  return useQuery({
    queryKey: keys.unread(),
    queryFn: async ({ signal }) => (await bell().getUnreadCount({}, { signal })).unreadCount,
    enabled,
    staleTime: 30_000,
  });
}

export function useNotifications(f: ListFilter, enabled = true) {
  return useQuery({
    queryKey: keys.list(f),
    queryFn: async ({ signal }) =>
      bell().listNotifications({ page: f.page, perPage: f.perPage, category: f.category, isRead: f.isRead }, { signal }),
    enabled,
    placeholderData: (prev) => prev,
  });
}

export function createdAt(n: Notification): Date | null {
  return n.createdAt ? timestampDate(n.createdAt) : null;
}

/** Every change reloads the lists and the count; the server is the truth. */
function useBellMutation<V>(fn: (v: V) => Promise<unknown>, failure: MessageKey) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onError: (err) => toast.error(errorMessage(err, failure)),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.all }),
  });
}

export function useMarkRead() {
  const qc = useQueryClient();
  return useBellMutation(async (id: string) => {
    const r = await bell().markRead({ id });
    qc.setQueryData(keys.unread(), r.unreadCount);
    return r;
  }, "Failed to mark notification as read");
}

export function useMarkAllRead() {
  return useBellMutation(() => bell().markAllRead({}), "Failed to update notifications");
}

export function useDeleteNotification() {
  return useBellMutation((id: string) => bell().deleteNotification({ id }), "Failed to update notifications");
}

export function useClearNotifications() {
  return useBellMutation(
    (v: { archive: boolean; isRead?: boolean; category?: string }) =>
      bell().clearNotifications({ archiveAll: v.archive, isRead: v.isRead, category: v.category ?? "" }),
    "Failed to update notifications",
  );
}

/** One system_alert test notification: shows the user that alerts reach their bell live. */
export function useCreateTestNotification() {
  return useBellMutation(() => bell().createTestNotification({}), "Failed to send the test notification");
}

export function useNotificationSettings() {
  return useQuery({
    queryKey: keys.settings(),
    queryFn: async ({ signal }) => (await bell().getNotificationSettings({}, { signal })).settings,
  });
}

export function useSaveNotificationSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (s: NotificationSettings) => (await bell().updateNotificationSettings({ settings: s })).settings,
    onSuccess: (s) => {
      qc.setQueryData(keys.settings(), s);
      toast.success(th.notifications.settingsSaved);
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to save notification settings")),
  });
}

/** The webhook's key: under the settings, so a settings reload refreshes it too. */
const webhookKey = () => [...keys.settings(), "webhook"] as const;

/** The user's outgoing webhook (never its secret) and its delivery log. */
export function useWebhook() {
  return useQuery({
    queryKey: webhookKey(),
    queryFn: ({ signal }) => bell().getWebhook({}, { signal }),
    refetchInterval: 15_000, // the log moves as retries happen
  });
}

/** Sets the webhook; the answer carries the secret, shown once. */
export function useSetWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (url: string) => bell().setWebhook({ url }),
    onSettled: () => qc.invalidateQueries({ queryKey: webhookKey() }),
  });
}

export function useDeleteWebhook() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => bell().deleteWebhook({}),
    onSettled: () => qc.invalidateQueries({ queryKey: webhookKey() }),
    onError: (err) => toast.error(errorMessage(err, "Failed to save notification settings")),
  });
}
