import type { ComponentType } from "react";
import { createBrowserRouter, Navigate, type RouteObject } from "react-router";
import { PageSkeleton } from "@/components/ui/skeleton";
import { usePageTitle } from "@/hooks/use-page-title";
import { th } from "@/i18n/th";
import { SETTINGS_SECTIONS } from "@/features/settings/sections";
import { RequireAuth } from "./guards";
import { PublicLayout, SearchLayout, SettingsLayout } from "./layouts/layouts";
import { NotFoundPage } from "./not-found";

/** Route-level code splitting: each screen is its own chunk. */
function page<M>(load: () => Promise<M>, pick: (m: M) => ComponentType) {
  return async () => ({ Component: pick(await load()) });
}

const auth = () => import("@/features/auth/components/login-page");
const signup = () => import("@/features/auth/components/signup-page");
const verifyReg = () => import("@/features/auth/components/verify-registration-page");
const verifyAcc = () => import("@/features/auth/components/verify-account-pages");
const forgot = () => import("@/features/auth/components/forgot-password-page");
const line = () => import("@/features/auth/components/line-pages");
const projects = () => import("@/features/projects/components/project-pages");
const payment = () => import("@/features/payment/components/payment-pages");
const settings = () => import("@/features/settings/components/settings-pages");
const legal = () => import("@/features/legal/components/legal-pages");
const market = () => import("@/features/market/components/market-page");
const marketProfiles = () => import("@/features/market/components/profile-pages");
const teamsList = () => import("@/features/teams/components/teams-page");
const teamJoin = () => import("@/features/teams/components/join-page");
const teamSettings = () => import("@/features/teams/components/team-settings-page");
const pipeline = () => import("@/features/teams/components/pipeline-page");

function TestSkeletonPage() {
  usePageTitle(th.titles.test);
  return <PageSkeleton bodyOnly />;
}

/** docs/product.md#screens-and-routes, route for route. */
const appRoutes: RouteObject[] = [
  {
    element: <PublicLayout />,
    children: [
      { index: true, lazy: page(() => import("@/features/home/components/home-route"), (m) => m.HomeRoute) },
      { path: "login", lazy: page(auth, (m) => m.LoginPage) },
      { path: "signup", lazy: page(signup, (m) => m.SignupPage) },
      { path: "test", element: <TestSkeletonPage /> },
      { path: "project-test", lazy: page(projects, (m) => m.ProjectTestPage) },
      { path: "verify-account/otp", lazy: page(verifyAcc, (m) => m.VerifyAccountOtpPage) },
      { path: "verify-account/register-otp", lazy: page(verifyAcc, (m) => m.VerifyAccountRegisterOtpPage) },
      { path: "forgot-password", element: <Navigate to={`/forgot-password/${encodeURIComponent("/login")}`} replace /> },
      { path: "forgot-password/:encodedPath", lazy: page(forgot, (m) => m.ForgotPasswordPage) },
      { path: "payment/tier/success", lazy: page(payment, (m) => m.PaymentSuccessPage) },
      { path: "verify-registration", lazy: page(verifyReg, (m) => m.VerifyRegistrationPage) },
      { path: "auth/line/callback", lazy: page(line, (m) => m.LineCallbackPage) },
      { path: "auth/line/success", lazy: page(line, (m) => m.LineSuccessPage) },
      { path: "auth/line/success/verify-otp", lazy: page(line, (m) => m.LineVerifyOtpPage) },
      { path: "about", lazy: page(legal, (m) => m.AboutPage) },
      { path: "privacy", lazy: page(legal, (m) => m.PrivacyPage) },
      { path: "terms", lazy: page(legal, (m) => m.TermsPage) },
      {
        element: <RequireAuth />,
        children: [
          { path: "payment", lazy: page(payment, (m) => m.PaymentPage) },
          { path: "payment/local/:sessionId", lazy: page(payment, (m) => m.LocalCheckoutPage) },
          { path: "receipt/:number", lazy: page(() => import("@/features/payment/components/receipt-page"), (m) => m.ReceiptPage) },
        ],
      },
    ],
  },
  {
    element: <SearchLayout />,
    children: [
      { path: "search", lazy: page(() => import("@/features/search/components/search-page"), (m) => m.SearchPage) },
      {
        element: <RequireAuth />,
        children: [
          { path: "project-details", lazy: page(projects, (m) => m.ProjectDetailsPage) },
          { path: "project-details/:projectId", lazy: page(projects, (m) => m.ProjectDetailsPage) },
          { path: "my-projects", lazy: page(() => import("@/features/interests/components/my-projects-page"), (m) => m.MyProjectsPage) },
          { path: "notifications", lazy: page(() => import("@/features/notifications/components/notifications-page"), (m) => m.NotificationsPage) },
          { path: "market", lazy: page(market, (m) => m.MarketPage) },
          { path: "market/suppliers", lazy: page(marketProfiles, (m) => m.SupplierSearchPage) },
          { path: "market/suppliers/:taxId", lazy: page(marketProfiles, (m) => m.SupplierPage) },
          { path: "market/agencies/:deptCode", lazy: page(marketProfiles, (m) => m.AgencyPage) },
          { path: "pipeline", lazy: page(pipeline, (m) => m.PipelinePage) },
          { path: "teams", lazy: page(teamsList, (m) => m.TeamsPage) },
          { path: "teams/join", lazy: page(teamJoin, (m) => m.JoinTeamPage) },
          { path: "teams/:teamId", lazy: page(teamSettings, (m) => m.TeamSettingsPage) },
          { path: "teams/:teamId/pipeline", lazy: page(pipeline, (m) => m.TeamPipelineLink) },
        ],
      },
    ],
  },
  {
    path: "user-settings",
    element: <RequireAuth />,
    children: [
      {
        element: <SettingsLayout />,
        children: [
          { index: true, element: <Navigate to="user-info" replace /> },
          ...SETTINGS_SECTIONS.filter((s) => s !== "contact-us").map((s) => ({
            path: s,
            lazy: page(settings, (m) => () => <m.SettingsSectionPage section={s} />),
          })),
          { path: "contact-us", lazy: page(settings, (m) => m.ContactUsPage) },
        ],
      },
    ],
  },
  { path: "*", element: <NotFoundPage /> },
];

/** One pathless root so the first lazy screen shows the skeleton while it loads. */
export const routes: RouteObject[] = [{ hydrateFallbackElement: <PageSkeleton />, children: appRoutes }];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
