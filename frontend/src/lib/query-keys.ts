import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ListProjectsRequestSchema } from "@/gen/projects/v1/projects_pb";

/**
 * Every TanStack Query key of the app, from one factory. Each group has an
 * `all` prefix; a narrower key always starts with the broader one, so
 * `invalidateQueries({ queryKey: queryKeys.projects.lists() })` reaches every
 * `queryKeys.projects.list(req)`, and `queryKeys.interests.all` every
 * interests query. Use these functions for reading, writing, cancelling and
 * invalidating alike; never spell a key inline.
 */
export const queryKeys = {
  /** The start-up session restore: kept across logout (see useLogout). */
  session: {
    all: ["session"] as const,
    restore: () => ["session", "restore"] as const,
    /** Two-step state, password age, LINE link (GetSecuritySettings). */
    security: () => ["session", "security"] as const,
    /** The devices signed in (ListSessions). */
    devices: () => ["session", "devices"] as const,
    /** Which ways in the sign-in pages offer (GetLoginOptions): the same for everyone. */
    loginOptions: () => ["session", "login-options"] as const,
  },

  projects: {
    all: ["projects"] as const,
    /** Prefix of every ListProjects page (search results, whatever the request). */
    lists: () => ["projects", "list"] as const,
    list: (req: MessageInitShape<typeof ListProjectsRequestSchema>) => ["projects", "list", req] as const,
    detail: (projectId: string | null) => ["projects", "detail", projectId] as const,
    dropdownData: () => ["projects", "dropdown-data"] as const,
    /** The signed-in user's saved searches (RecallSaveCriteria without an id). */
    savedCriteria: () => ["projects", "saved-criteria"] as const,
  },

  interests: {
    all: ["interests"] as const,
    /** The signed-in user's interest in one project (marks, bid). */
    one: (projectId: string) => ["interests", "one", projectId] as const,
    /** Prefix of the active and the archived "my projects" lists. */
    lists: () => ["interests", "list"] as const,
    /** One list; ordered or filtered by deadline, the order is part of the key. */
    list: (archived: boolean, order?: { sort: string; closingDays: number }) =>
      order && (order.sort || order.closingDays)
        ? (["interests", "list", archived ? "archived" : "active", order] as const)
        : (["interests", "list", archived ? "archived" : "active"] as const),
    /** The user's calendar link's state (GetCalendarFeed). */
    calendarFeed: () => ["interests", "calendar-feed"] as const,
    comments: (projectId: string) => ["interests", "comments", projectId] as const,
  },

  subscription: {
    all: ["subscription.v1.SubscriptionService"] as const,
    tiers: () => ["subscription.v1.SubscriptionService", "ListTiers", { includeAll: true }] as const,
    /** The signed-in user's plan in force (refetched when older than 5 minutes). */
    mine: () => ["subscription.v1.SubscriptionService", "GetMySubscription"] as const,
    payments: () => ["subscription.v1.SubscriptionService", "ListPayments"] as const,
    localCheckout: (sessionId: string) => ["subscription.v1.SubscriptionService", "GetLocalCheckout", sessionId] as const,
  },

  market: {
    all: ["market"] as const,
    /** GetBenchmarks for one set of filters (the request is the key). */
    benchmarks: (req: object) => ["market", "benchmarks", req] as const,
    /** A project's price guide; with a bid, that bid placed in the group. */
    priceGuide: (projectId: string, bidPrice?: number | null) => ["market", "price-guide", projectId, bidPrice ?? null] as const,
    suppliers: (q: string) => ["market", "suppliers", q] as const,
    supplier: (taxId: string) => ["market", "supplier", taxId] as const,
    agency: (deptCode: string) => ["market", "agency", deptCode] as const,
    watchlist: () => ["market", "watchlist"] as const,
  },

  notifications: {
    all: ["notifications"] as const,
    unread: () => ["notifications", "unread"] as const,
    /** Prefix of every page of the bell, whatever the filter. */
    lists: () => ["notifications", "list"] as const,
    list: (f: { page: number; perPage: number; category: string; isRead?: boolean }) => ["notifications", "list", f] as const,
    settings: () => ["notifications", "settings"] as const,
  },

  teams: {
    all: ["teams"] as const,
    /** The signed-in user's teams with their role (ListTeams). */
    mine: () => ["teams", "mine"] as const,
    team: (teamId: string) => ["teams", teamId] as const,
    one: (teamId: string) => ["teams", teamId, "team"] as const,
    members: (teamId: string) => ["teams", teamId, "members"] as const,
    invitations: (teamId: string) => ["teams", teamId, "invitations"] as const,
    apiKeys: (teamId: string) => ["teams", teamId, "api-keys"] as const,
    calendarFeed: (teamId: string) => ["teams", teamId, "calendar-feed"] as const,
    /** Prefix of every page of a team's pipeline, whatever the filter. */
    pipelines: (teamId: string) => ["teams", teamId, "pipeline"] as const,
    pipeline: (teamId: string, f: { stage: string; owner: string }) => ["teams", teamId, "pipeline", f] as const,
    item: (teamId: string, projectId: string) => ["teams", teamId, "item", projectId] as const,
    history: (teamId: string, projectId: string) => ["teams", teamId, "item", projectId, "history"] as const,
    comments: (teamId: string, projectId: string) => ["teams", teamId, "item", projectId, "comments"] as const,
  },
};
