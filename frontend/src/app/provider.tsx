import { useEffect, useState, type ReactNode } from "react";
import { QueryClientProvider, useQuery, type QueryClient } from "@tanstack/react-query";
import { Code, ConnectError } from "@connectrpc/connect";
import { PageSkeleton } from "@/components/ui/skeleton";
import { Toaster } from "@/components/ui/toaster";
import { restoreSession } from "@/features/auth/api/auth-api";
import { BellLive } from "@/features/notifications";
import { errorMessage, SESSION_EXPIRED } from "@/lib/errors";
import { queryKeys } from "@/lib/query-keys";
import { configureSession } from "@/lib/session";
import { msg } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { useBidsStore } from "@/stores/bids-store";
import { waitForHydration, PERSIST_TIMEOUT_MS } from "@/stores/hydration";
import { toast } from "@/stores/toast-store";

/** Start-up (docs/product.md#start-up): on failure the restore is retried up to 2 more times. */
export const SESSION_RETRIES = 2;

configureSession({
  onCredentialsCleared: (reason) => {
    const hadUser = useAuthStore.getState().user !== null;
    useAuthStore.getState().clearAuth();
    if (reason === "expired" && hadUser) toast.error(msg(SESSION_EXPIRED));
  },
});

function isRetryable(err: unknown): boolean {
  const code = ConnectError.from(err).code;
  return code !== Code.Unauthenticated && code !== Code.PermissionDenied && code !== Code.NotFound;
}

/**
 * Rendering waits for persisted state (≤ 5000 ms), then for the session
 * restore; the skeleton page shows meanwhile.
 */
export function StartupGate({ children, timeoutMs = PERSIST_TIMEOUT_MS }: { children: ReactNode; timeoutMs?: number }) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    let live = true;
    void waitForHydration([useAuthStore.persist, useBidsStore.persist], timeoutMs).then(() => live && setHydrated(true));
    return () => {
      live = false;
    };
  }, [timeoutMs]);

  const session = useQuery({
    queryKey: queryKeys.session.restore(),
    queryFn: restoreSession,
    enabled: hydrated,
    retry: (failures, err) => failures < SESSION_RETRIES && isRetryable(err),
    retryDelay: (attempt) => Math.min(400 * 2 ** attempt, 2000),
    staleTime: Infinity,
    gcTime: Infinity,
  });

  useEffect(() => {
    if (session.isError) toast.error(errorMessage(session.error, "Service is currently unavailable. Please try again later."));
  }, [session.isError, session.error]);

  // Once the app has rendered it stays up: later cache resets (logout) never bring the skeleton back.
  const [started, setStarted] = useState(false);
  const ready = hydrated && !session.isPending;
  useEffect(() => {
    if (ready) setStarted(true);
  }, [ready]);
  if (!ready && !started) return <PageSkeleton />;
  return <>{children}</>;
}

export function AppProvider({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <StartupGate>
        <BellLive />
        {children}
      </StartupGate>
      <Toaster />
    </QueryClientProvider>
  );
}
