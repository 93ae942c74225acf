import { Link } from "react-router";
import { th } from "@/i18n/th";
import { Logo } from "@/components/ui/logo";

/**
 * docs/product.md#header-and-footer: About, Privacy policy, Licensing, Contact and the copyright
 * with the current year.
 */
export function Footer() {
  const year = new Date().getFullYear();
  return (
    <footer className="site-footer" data-testid="site-footer">
      <div className="container footer-inner">
        <div className="footer-brand">
          <Logo />
          <p>{th.footer.blurb}</p>
        </div>
        <nav className="footer-links" aria-label="footer">
          <Link to="/about">{th.footer.about}</Link>
          <Link to="/privacy">{th.footer.privacy}</Link>
          <Link to="/terms">{th.footer.licensing}</Link>
          <Link to="/user-settings/contact-us">{th.footer.contact}</Link>
        </nav>
      </div>
      <div className="container footer-bottom">
        <p data-testid="copyright">{th.footer.copyright(year)}</p>
      </div>
    </footer>
  );
}
