import { useEffect } from "react";
import { TITLE_SUFFIX } from "@/i18n/th";

/**
 * Page titles carry the suffix '{product} Thailand' (docs/product.md#language-titles-and-formats);
 * `exact` sets the title verbatim.
 */
export function pageTitle(title?: string): string {
  return title ? `${title} - ${TITLE_SUFFIX}` : TITLE_SUFFIX;
}

export function usePageTitle(title?: string, exact = false): void {
  useEffect(() => {
    document.title = exact && title ? title : pageTitle(title);
  }, [title, exact]);
}
