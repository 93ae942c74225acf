import { partialMatchKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { logout } from "../api/auth-api";
import { msg } from "@/i18n/th";
import { queryKeys } from "@/lib/query-keys";
import { toast } from "@/stores/toast-store";

/**
 * docs/product.md#logout: 'Logged out successfully.', then /login after 100 ms; failure toasts and
 * keeps the session.
 */
export const LOGOUT_REDIRECT_MS = 100;

export function useLogout() {
  const navigate = useNavigate();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      // Drop the user's cached data; the start-up session entry stays.
      qc.removeQueries({ predicate: (q) => !partialMatchKey(q.queryKey, queryKeys.session.all) });
      toast.success(msg("Logged out successfully."));
      setTimeout(() => void navigate("/login", { replace: true }), LOGOUT_REDIRECT_MS);
    },
    onError: () => toast.error(msg("Logout failed, please try again.")),
  });
}
