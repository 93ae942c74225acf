import { toast } from "@/stores/toast-store";
import { th } from "@/i18n/th";

/** Copies text to the clipboard with a toast either way. */
export async function copyText(text: string, done: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    toast.success(done);
    return true;
  } catch {
    toast.error(th.teams.copyFailed);
    return false;
  }
}
