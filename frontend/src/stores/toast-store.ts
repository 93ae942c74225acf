import { create } from "zustand";

export type ToastKind = "success" | "error" | "info" | "warning";
export type Toast = { id: number; kind: ToastKind; text: string; durationMs: number };

/** docs/product.md#business-constants-and-limits: toasts auto-close after 3000 ms, top-right (bell toasts 5000 ms). */
export const TOAST_MS = 3000;

type ToastState = {
  toasts: Toast[];
  push: (kind: ToastKind, text: string, durationMs?: number) => number;
  dismiss: (id: number) => void;
};

let nextId = 1;

export const useToastStore = create<ToastState>()((set) => ({
  toasts: [],
  push: (kind, text, durationMs = TOAST_MS) => {
    const id = nextId++;
    set((s) => ({ toasts: [...s.toasts.filter((t) => t.text !== text), { id, kind, text, durationMs }].slice(-5) }));
    return id;
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}));

export const toast = {
  success: (text: string) => useToastStore.getState().push("success", text),
  error: (text: string) => useToastStore.getState().push("error", text),
  info: (text: string) => useToastStore.getState().push("info", text),
  warning: (text: string) => useToastStore.getState().push("warning", text),
};
