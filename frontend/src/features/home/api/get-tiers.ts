import { queryOptions, useQuery } from "@tanstack/react-query";
import { SubscriptionService, type Tier } from "@/gen/subscription/v1/subscription_pb";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";

/**
 * GET /subscription-tiers through subscription.v1 ListTiers (public; tiers are data:
 * docs/architecture.md#tiers-are-data).
 */
export async function getTiers(): Promise<Tier[]> {
  const res = await getClient(SubscriptionService).listTiers({ includeAll: true });
  return [...res.tierDetails].sort((a, b) => a.rank - b.rank || a.price - b.price);
}

export const tiersQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.subscription.tiers(),
    queryFn: getTiers,
    staleTime: 5 * 60_000,
  });

export function useTiers() {
  return useQuery(tiersQueryOptions());
}
