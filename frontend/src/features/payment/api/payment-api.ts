import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { errorMessage } from "@/lib/errors";
import { SubscriptionService } from "@/gen/subscription/v1/subscription_pb";
import { toast } from "@/stores/toast-store";
import type { ProfileInput } from "../lib/billing-profile";

const subs = () => getClient(SubscriptionService);

const keys = queryKeys.subscription;

/** docs/product.md#subscription-refetch: the client refetches the subscription when older than 5 minutes. */
export const SUBSCRIPTION_STALE_MS = 5 * 60_000;

/** The plan in force; fresh = read it again now (after a payment). */
export function useMySubscription(opts: { fresh?: boolean } = {}) {
  return useQuery({
    queryKey: keys.mine(),
    queryFn: ({ signal }) => subs().getMySubscription({}, { signal }),
    staleTime: SUBSCRIPTION_STALE_MS,
    refetchOnMount: opts.fresh ? "always" : true,
  });
}

export function usePayments() {
  return useQuery({ queryKey: keys.payments(), queryFn: ({ signal }) => subs().listPayments({}, { signal }) });
}

/** An order; buyer: the tax invoice names it; receiptOnly: a receipt naming nobody. */
export type Order = {
  tier: string;
  period: "monthly" | "yearly";
  method: "card" | "promptpay";
  key: string;
  buyer?: ProfileInput;
  receiptOnly?: boolean;
};

/** Starts a checkout; the Idempotency-Key makes a double click one session. */
export function useCheckout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (o: Order) =>
      subs().createCheckout(
        { tier: o.tier, period: o.period, method: o.method, buyer: o.buyer, receiptOnly: o.receiptOnly ?? false },
        { headers: { "Idempotency-Key": o.key } },
      ),
    // A buyer given is saved as the billing profile.
    onSuccess: (_r, o) => (o.buyer ? qc.invalidateQueries({ queryKey: billingKeys.profile() }) : undefined),
    onError: (err) => toast.error(errorMessage(err, "Failed to start the payment")),
  });
}

export function useLocalCheckout(id: string) {
  return useQuery({
    queryKey: keys.localCheckout(id),
    queryFn: async ({ signal }) => (await subs().getLocalCheckout({ sessionId: id }, { signal })).checkout,
    retry: false,
  });
}

export function useCompleteLocal(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (outcome: "paid" | "failed") => subs().completeLocalCheckout({ sessionId: id, outcome }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.all }),
    onError: (err) => toast.error(errorMessage(err, "Failed to start the payment")),
  });
}

// Keys of this feature's other calls, under the service's key from the factory.
const billingKeys = {
  profile: () => [...keys.all, "GetBillingProfile"] as const,
  receipt: (n: string) => [...keys.all, "GetReceipt", n] as const,
};

/** Stops (cancel) or restores (resume) the plan's renewal. */
export function useRenewal() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (action: "cancel" | "resume"): Promise<{ message: string }> =>
      action === "cancel" ? subs().cancelSubscription({}) : subs().resumeSubscription({}),
    onSuccess: (r) => {
      toast.success(r.message);
      return qc.invalidateQueries({ queryKey: keys.all });
    },
    onError: (err, action) => toast.error(errorMessage(err, action === "cancel" ? "Failed to cancel renewal" : "Failed to resume renewal")),
  });
}

export function useBillingProfile() {
  return useQuery({ queryKey: billingKeys.profile(), queryFn: ({ signal }) => subs().getBillingProfile({}, { signal }) });
}

export function useSaveBillingProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (p: ProfileInput) => subs().updateBillingProfile(p),
    onSuccess: (r) => {
      toast.success(r.message);
      return qc.invalidateQueries({ queryKey: billingKeys.profile() });
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to save the billing profile")),
  });
}

export function useReceipt(number: string) {
  return useQuery({
    queryKey: billingKeys.receipt(number),
    queryFn: async ({ signal }) => (await subs().getReceipt({ number }, { signal })).receipt,
    retry: false,
  });
}

/** Reissues a receipt issued without a buyer as a replacement tax invoice naming buyer (once). */
export function useReissueReceipt(number: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (buyer: ProfileInput) => subs().reissueReceipt({ number, buyer }),
    onSuccess: (r) => {
      toast.success(r.message);
      // Not awaited: the caller moves to the replacement at once.
      void qc.invalidateQueries({ queryKey: billingKeys.receipt(number) });
      void qc.invalidateQueries({ queryKey: keys.payments() });
      void qc.invalidateQueries({ queryKey: billingKeys.profile() });
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to issue the tax invoice")),
  });
}
