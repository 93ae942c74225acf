/**
 * "Download my data" (Thailand's PDPA, the right to data portability): every
 * service's answer about the signed-in user, gathered page by page into one
 * JSON file in the services' own JSON field names.
 */
import { create, toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { authClient, getClient } from "@/lib/clients";
import { download } from "@/lib/download";
import {
  GetMeResponseSchema,
  GetSecuritySettingsResponseSchema,
  ListSessionsResponseSchema,
} from "@/gen/auth/v1/auth_pb";
import {
  InterestsService,
  ListActiveInterestsResponseSchema,
  ListCommentsResponseSchema,
  type UserInterest,
} from "@/gen/interests/v1/interests_pb";
import { ProjectsService, RecallSaveCriteriaResponseSchema } from "@/gen/projects/v1/projects_pb";
import {
  GetNotificationSettingsResponseSchema,
  ListNotificationsResponseSchema,
  NotificationService,
} from "@/gen/notification/v1/notification_pb";
import {
  GetMySubscriptionResponseSchema,
  ListPaymentsResponseSchema,
  SubscriptionService,
} from "@/gen/subscription/v1/subscription_pb";

const PAGE = 100;

function json<D extends DescMessage>(schema: D, m: MessageShape<D>) {
  return toJson(schema, m, { alwaysEmitImplicit: true });
}

/** Every page of a paged list, until a short page. */
async function allPages<T>(fetch: (page: number) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= 1000; page++) {
    const rows = await fetch(page);
    out.push(...rows);
    if (rows.length < PAGE) break;
  }
  return out;
}

/** The user's data in every service, as one JSON-ready object. */
export async function collectMyData(): Promise<Record<string, unknown>> {
  const auth = authClient();
  const interests = getClient(InterestsService);
  const projects = getClient(ProjectsService);
  const notifications = getClient(NotificationService);
  const subscription = getClient(SubscriptionService);

  const [me, security, sessions] = await Promise.all([auth.getMe({}), auth.getSecuritySettings({}), auth.listSessions({})]);
  const list = (archived: boolean) =>
    allPages(async (page) => {
      const r = archived
        ? await interests.listArchivedInterests({ page, perPage: PAGE })
        : await interests.listActiveInterests({ page, perPage: PAGE });
      return r.data;
    });
  const [active, archived] = await Promise.all([list(false), list(true)]);
  const withComments = [...active, ...archived].filter((r: UserInterest) => r.commentCount > 0);
  const comments = [];
  for (const r of withComments) {
    const c = await interests.listComments({ id: r.idProject });
    comments.push({ project_id: r.idProject, ...(json(ListCommentsResponseSchema, c) as object) });
  }
  const bell = await allPages(async (page) => (await notifications.listNotifications({ page, perPage: PAGE })).notifications);
  const [criteria, alertSettings, plan, payments] = await Promise.all([
    projects.recallSaveCriteria({}),
    notifications.getNotificationSettings({}),
    subscription.getMySubscription({}),
    subscription.listPayments({}),
  ]);

  return {
    exported_at: new Date().toISOString(),
    account: json(GetMeResponseSchema, me),
    security: json(GetSecuritySettingsResponseSchema, security),
    sessions: json(ListSessionsResponseSchema, sessions),
    tracked_projects: {
      active: json(ListActiveInterestsResponseSchema, create(ListActiveInterestsResponseSchema, { data: active })),
      archived: json(ListActiveInterestsResponseSchema, create(ListActiveInterestsResponseSchema, { data: archived })),
      comments,
    },
    saved_searches: json(RecallSaveCriteriaResponseSchema, criteria),
    notifications: json(
      ListNotificationsResponseSchema,
      create(ListNotificationsResponseSchema, { notifications: bell, total: bell.length, unreadCount: bell.filter((n) => !n.isRead).length }),
    ),
    notification_settings: json(GetNotificationSettingsResponseSchema, alertSettings),
    subscription: json(GetMySubscriptionResponseSchema, plan),
    payments: json(ListPaymentsResponseSchema, payments),
  };
}

/** Collects the user's data and saves it as bidradar-my-data-YYYY-MM-DD.json. */
export async function downloadMyData(): Promise<void> {
  const data = await collectMyData();
  const day = new Date().toISOString().slice(0, 10);
  download(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }), `bidradar-my-data-${day}.json`);
}
