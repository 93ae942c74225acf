import { useState } from "react";
import { Button } from "@/components/ui/button";
import { IconLine } from "@/components/ui/icons";
import { errorMessage } from "@/lib/errors";
import { th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import { useLoginOptions } from "@/lib/login-options";
import { lineAuthorize } from "../api/auth-api";

/**
 * "or" and LINE's button, only when the server has a LINE channel: without
 * one the button could only fail. Nothing shows until the server has said.
 */
export function LineLoginOption({ redirectTo }: { redirectTo: string }) {
  if (!useLoginOptions()?.lineLogin) return null;
  return (
    <>
      <div className="divider">
        <span>{th.common.or}</span>
      </div>
      <LineButton redirectTo={redirectTo} />
    </>
  );
}

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
