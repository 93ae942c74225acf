import { Link } from "react-router";
import { PlaceholderPage } from "@/components/ui/placeholder-page";
import { th } from "@/i18n/th";

/** /payment (login required). */
export function PaymentPage() {
  return <PlaceholderPage title={th.titles.payment} lead={th.pages.paymentLead} />;
}

/** /payment/tier/success. */
export function PaymentSuccessPage() {
  return (
    <PlaceholderPage title={th.titles.paymentSuccess} lead={th.pages.paymentSuccessLead}>
      <Link to="/user-settings/account-status" className="btn btn-primary btn-md">
        {th.pages.goSettings}
      </Link>
    </PlaceholderPage>
  );
}
