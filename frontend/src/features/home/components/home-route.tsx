import { InlineSpinner } from "@/components/ui/skeleton";
import { FirstStep, useFirstStep } from "@/features/search";
import { HomePage } from "./home-page";

/**
 * "/": the landing page, except for a signed-in user without a saved search,
 * who gets the first step (a freshly verified account lands here).
 */
export function HomeRoute() {
  const step = useFirstStep();
  if (step === "show") return <FirstStep />;
  if (step === "pending") {
    return (
      <div className="route-loading">
        <InlineSpinner />
      </div>
    );
  }
  return <HomePage />;
}
