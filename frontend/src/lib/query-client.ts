import { QueryClient } from "@tanstack/react-query";

/** bulletproof-react's defaults: no refetch on focus, no silent retries, 1 min fresh. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { refetchOnWindowFocus: false, retry: false, staleTime: 60_000 },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();
