import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Code, ConnectError } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { errorMessage, errorReason, serverMessage } from "@/lib/errors";
import { MarketService, type GetBenchmarksRequestSchema } from "@/gen/market/v1/market_pb";
import { th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import { useMySubscription } from "@/features/payment";
import type { Criteria } from "@/features/search";

const market = () => getClient(MarketService);

/** The plan refused the call (403 with reason upgrade_required, docs/market.md#tiers). */
export function isUpgradeRequired(err: unknown): boolean {
  return errorReason(err) === "upgrade_required";
}

export function isNotFound(err: unknown): boolean {
  return ConnectError.from(err).code === Code.NotFound;
}

/** A malformed or failed-check tax id (400). */
export function isInvalidArgument(err: unknown): boolean {
  return ConnectError.from(err).code === Code.InvalidArgument;
}

/**
 * What the user's plan opens of the market (the tier table's feature keys,
 * docs/product.md#tiers-and-plan-limits): benchmarks and the price guide
 * (market_benchmarks), supplier and agency profiles and the watchlist
 * (market_profiles). The calls wait for the plan (ask: false while it
 * loads), so a plan without them never asks; when the plan cannot be read
 * the server decides (a 403 upgrade_required shows the same prompt).
 */
export type MarketAccess = { benchmarks?: boolean; profiles?: boolean; watchlistSize?: number; ask: { benchmarks: boolean; profiles: boolean } };

export function useMarketAccess(): MarketAccess {
  const sub = useMySubscription();
  const f = sub.data?.features;
  if (!f) return { ask: { benchmarks: sub.isError, profiles: sub.isError } };
  const benchmarks = f.includes("market_benchmarks");
  const profiles = f.includes("market_profiles");
  return { benchmarks, profiles, watchlistSize: sub.data?.combinationLimits?.watchlistSize, ask: { benchmarks, profiles } };
}

/** The search criteria as GetBenchmarks' filters (the GET /gen-infor names and semantics). */
export function benchmarkRequest(c: Criteria): MessageInitShape<typeof GetBenchmarksRequestSchema> {
  return {
    keyWordInclOr: c.or,
    keyWordInclAnd: c.and,
    keyWordExclNor: c.not,
    deptUser: c.departments,
    deptSubProvinceUser: c.subDepartments,
    methodUserRequired: c.methods,
    typeTranUser: c.categories,
    budgetYearUser: c.budgetYears,
    provinceUser: c.provinces,
    ministryUser: c.ministries,
    annouSDateUser: c.dateFrom,
    annouEDateUser: c.dateTo,
    projectMoneySUser: c.moneyMin ?? undefined,
    projectMoneyEUser: c.moneyMax ?? undefined,
  };
}

export function useBenchmarks(c: Criteria, enabled = true) {
  const req = benchmarkRequest(c);
  return useQuery({
    queryKey: queryKeys.market.benchmarks(req),
    queryFn: ({ signal }) => market().getBenchmarks(req, { signal }),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 5 * 60_000,
  });
}

/**
 * A project's price guide; bidPrice (debounced by the caller) places a bid
 * in the group. The previous answer stays on screen while the next loads.
 */
export function usePriceGuide(projectId: string, bidPrice: number | null, enabled = true) {
  return useQuery({
    queryKey: queryKeys.market.priceGuide(projectId, bidPrice),
    queryFn: ({ signal }) => market().getPriceGuide({ projectId, bidPrice: bidPrice ?? undefined }, { signal }),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 5 * 60_000,
  });
}

export function useSupplierSearch(q: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.market.suppliers(q),
    queryFn: async ({ signal }) => (await market().searchSuppliers({ q, limit: 20 }, { signal })).suppliers,
    placeholderData: keepPreviousData,
    enabled: enabled && q.trim().length >= 2,
    staleTime: 60_000,
  });
}

export function useSupplier(taxId: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.market.supplier(taxId),
    queryFn: ({ signal }) => market().getSupplier({ taxId }, { signal }),
    enabled,
    staleTime: 60_000,
  });
}

export function useAgency(deptCode: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.market.agency(deptCode),
    queryFn: ({ signal }) => market().getAgency({ deptCode }, { signal }),
    enabled,
    staleTime: 5 * 60_000,
  });
}

export function useWatchlist(enabled = true) {
  return useQuery({
    queryKey: queryKeys.market.watchlist(),
    queryFn: ({ signal }) => market().listWatches({}, { signal }),
    enabled,
  });
}

/** Watching changes the list and a supplier's "watched" flag. */
function useAfterWatch() {
  const qc = useQueryClient();
  return (taxId: string) => {
    void qc.invalidateQueries({ queryKey: queryKeys.market.watchlist() });
    void qc.invalidateQueries({ queryKey: queryKeys.market.supplier(taxId) });
  };
}

/**
 * The Thai of a refused watch: the reason's Thai when the server sent one the
 * app knows; else, for a refusal of the request itself (a bad tax id, a full
 * list: 400 and 409 with a detail), the server's detail; else the generic one.
 */
export function watchErrorMessage(err: unknown): string {
  const e = ConnectError.from(err);
  const known = serverMessage(e);
  if (known) return known;
  const refusal = [Code.InvalidArgument, Code.AlreadyExists, Code.Aborted, Code.FailedPrecondition, Code.ResourceExhausted].includes(e.code);
  if (refusal && e.rawMessage.trim()) return e.rawMessage.trim();
  return errorMessage(e, "Failed to update the watchlist");
}

export function useAddWatch() {
  const after = useAfterWatch();
  return useMutation({
    mutationFn: (taxId: string) => market().addWatch({ taxId }),
    onSuccess: (_r, taxId) => {
      toast.success(th.market.watchAdded);
      after(taxId);
    },
  });
}

export function useRemoveWatch() {
  const after = useAfterWatch();
  return useMutation({
    mutationFn: (taxId: string) => market().removeWatch({ taxId }),
    onSuccess: (_r, taxId) => {
      toast.success(th.market.watchRemoved);
      after(taxId);
    },
    onError: (err) => toast.error(watchErrorMessage(err)),
  });
}
