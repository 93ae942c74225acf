import { useEffect } from "react";
import { useToastStore, type Toast } from "@/stores/toast-store";
import { th } from "@/i18n/th";
import { IconAlert, IconCheck, IconClose, IconInfo } from "./icons";

function ToastItem({ t }: { t: Toast }) {
  const dismiss = useToastStore((s) => s.dismiss);
  useEffect(() => {
    const id = setTimeout(() => dismiss(t.id), t.durationMs);
    return () => clearTimeout(id);
  }, [t.id, t.durationMs, dismiss]);
  const Icon = t.kind === "success" ? IconCheck : t.kind === "info" ? IconInfo : IconAlert;
  return (
    <div className={`toast toast-${t.kind}`} role={t.kind === "error" ? "alert" : "status"} data-testid="toast">
      <Icon size={20} />
      <p>{t.text}</p>
      <button type="button" onClick={() => dismiss(t.id)} aria-label={th.common.close}>
        <IconClose size={16} />
      </button>
      <span className="toast-bar" style={{ animationDuration: `${t.durationMs}ms` }} />
    </div>
  );
}

/** Toasts top-right, auto-close after 3000 ms (docs/product.md#business-constants-and-limits). */
export function Toaster() {
  const toasts = useToastStore((s) => s.toasts);
  return (
    <div className="toaster" aria-live="polite">
      {toasts.map((t) => (
        <ToastItem key={t.id} t={t} />
      ))}
    </div>
  );
}
