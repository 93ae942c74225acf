import { useQuery } from "@tanstack/react-query";
import { authClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";

/** Which ways in the server offers (GetLoginOptions): LINE Login only with a configured channel. */
export async function getLoginOptions(): Promise<{ lineLogin: boolean }> {
  const res = await authClient().getLoginOptions({});
  return { lineLogin: res.lineLogin };
}

/** The login options, fetched once per page load; undefined until the server has said. */
export function useLoginOptions() {
  return useQuery({ queryKey: queryKeys.session.loginOptions(), queryFn: getLoginOptions, staleTime: Infinity }).data;
}
