import { create } from "zustand";
import { createJSONStorage, persist } from "zustand/middleware";

/** docs/product.md#bid-per-project: bid per project, stored in browser storage under the key projectBids. */
export type ProjectBid = { bidPrice: number | null; reductionPercent: number | null; lastUpdated: string };

type BidsState = {
  bids: Record<string, ProjectBid>;
  setBidPrice: (projectId: string, bidPrice: number | null) => void;
  setReductionPercent: (projectId: string, reductionPercent: number | null) => void;
  removeBid: (projectId: string) => void;
  /** Store a bid as a whole (the server's copy, when it is newer). */
  putBid: (projectId: string, bid: ProjectBid) => void;
};

export const BIDS_STORAGE_KEY = "projectBids";

export const useBidsStore = create<BidsState>()(
  persist(
    (set) => ({
      bids: {},
      setBidPrice: (id, bidPrice) =>
        set((s) => ({
          bids: {
            ...s.bids,
            [id]: { reductionPercent: s.bids[id]?.reductionPercent ?? null, bidPrice, lastUpdated: new Date().toISOString() },
          },
        })),
      setReductionPercent: (id, reductionPercent) =>
        set((s) => ({
          bids: {
            ...s.bids,
            [id]: { bidPrice: s.bids[id]?.bidPrice ?? null, reductionPercent, lastUpdated: new Date().toISOString() },
          },
        })),
      putBid: (id, bid) => set((s) => ({ bids: { ...s.bids, [id]: bid } })),
      removeBid: (id) =>
        set((s) => {
          const bids = { ...s.bids };
          delete bids[id];
          return { bids };
        }),
    }),
    {
      name: BIDS_STORAGE_KEY,
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: (s) => ({ bids: s.bids }),
    },
  ),
);
