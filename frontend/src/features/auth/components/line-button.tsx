import { useState } from "react";
import { Button } from "@/components/ui/button";
import { IconLine } from "@/components/ui/icons";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import { lineAuthorize } from "../api/auth-api";

/** Starts LINE Login v2.1: the server builds the authorize URL (state, nonce, PKCE). */
export function LineButton({ redirectTo }: { redirectTo: string }) {
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    try {
      const url = await lineAuthorize(redirectTo);
      window.location.assign(url);
    } catch (e) {
      toast.error(errorMessage(e, "Login failed.", { login: true }));
      setBusy(false);
    }
  };
  return (
    <Button
      type="button"
      variant="line"
      block
      size="lg"
      icon={<IconLine size={22} />}
      loading={busy}
      data-testid="line-login"
      onClick={() => void start()}
    >
      {busy ? th.auth.lineRedirecting : th.auth.lineButton}
    </Button>
  );
}
