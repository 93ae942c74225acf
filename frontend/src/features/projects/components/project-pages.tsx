import { useState, type FormEvent } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { create } from "@bufbuild/protobuf";
import { ProjectDetailSchema } from "@/gen/projects/v1/projects_pb";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { errorMessage } from "@/lib/errors";
import { bahtOf, thaiDigitsToAscii } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { IconAlert, IconSearch } from "@/components/ui/icons";
import { isNotFound, useProject } from "../api/projects-api";
import { ProjectView } from "./project-view";
import { InterestPanel } from "@/features/interests";
import { AddToPipelineButton } from "@/features/teams";
import { useMySubscription } from "@/features/payment";
import { PriceGuide } from "@/features/market";
import "../projects.css";

const t = th.projectDetails;

function BackLink() {
  return (
    <Link to="/search" className="pd-back" data-testid="pd-back">
      ‹ {t.backToSearch}
    </Link>
  );
}

function DetailsSkeleton() {
  return (
    <div className="pd" aria-busy="true" data-testid="pd-skeleton">
      <div className="card pd-header">
        <div className="sk sk-line short" />
        <div className="sk sk-title" />
        <div className="sk sk-line" />
      </div>
      <div className="pd-grid">
        <div className="card pd-section">
          <div className="sk sk-block" />
        </div>
        <div className="card pd-section">
          <div className="sk sk-block" />
        </div>
      </div>
    </div>
  );
}

/** No id in the path or query: open a project by its 11-digit e-GP id. */
function Lookup({ initial = "", invalid = false }: { initial?: string; invalid?: boolean }) {
  const navigate = useNavigate();
  const [value, setValue] = useState(initial);
  const [error, setError] = useState(invalid ? t.lookupInvalid : "");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const id = thaiDigitsToAscii(value).replace(/[\s-]/g, "");
    if (!/^\d{11}$/.test(id)) {
      setError(t.lookupInvalid);
      return;
    }
    void navigate(`/project-details/${id}`);
  };
  return (
    <div className="card pd-lookup" data-testid="pd-lookup">
      <span className="state-icon">
        <IconSearch size={26} />
      </span>
      <h1>{t.lookupTitle}</h1>
      <p className="muted">{t.lookupLead}</p>
      <form className="pd-lookup-form" onSubmit={submit}>
        <label className="sr-only" htmlFor="pd-lookup-id">
          {t.lookupLabel}
        </label>
        <input
          id="pd-lookup-id"
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            setError("");
          }}
          inputMode="numeric"
          placeholder="69099722203"
          aria-invalid={error ? true : undefined}
        />
        <Button type="submit">{t.lookupButton}</Button>
      </form>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** /project-details/:projectId and /project-details?id=… (login required). */
export function ProjectDetailsPage() {
  const { projectId } = useParams();
  const [params] = useSearchParams();
  const raw = (projectId ?? params.get("id") ?? "").trim();
  const id = thaiDigitsToAscii(raw);
  const valid = /^\d{11}$/.test(id);
  const q = useProject(valid ? id : null);
  // The plan's features (undefined while unknown: the export stays offered and the server decides).
  const features = useMySubscription().data?.features;
  usePageTitle(q.data?.summary?.projectName ? `${q.data.summary.projectName} - ${t.title}` : t.title);

  let body;
  if (!raw) body = <Lookup />;
  else if (!valid) body = <Lookup initial={raw} invalid />;
  else if (q.isPending) body = <DetailsSkeleton />;
  else if (q.isError && isNotFound(q.error))
    body = (
      <div className="state-card" data-testid="pd-not-found">
        <span className="state-icon">
          <IconSearch size={28} />
        </span>
        <h1>{t.notFoundTitle}</h1>
        <p className="muted">{t.notFoundLead(id)}</p>
        <Link to="/search" className="btn btn-secondary btn-md">
          {th.pages.notFoundSearch}
        </Link>
      </div>
    );
  else if (q.isError)
    body = (
      <div className="state-card state-error" role="alert" data-testid="pd-error">
        <IconAlert size={28} />
        <h1>{t.errorTitle}</h1>
        <p>{errorMessage(q.error, "Failed to fetch data")}</p>
        <Button variant="secondary" onClick={() => void q.refetch()}>
          {t.retry}
        </Button>
      </div>
    );
  else {
    const s = q.data.summary;
    // As the server: the reference price (ราคากลาง), else the budget.
    const base = s?.referencePriceSatang && s.referencePriceSatang > 0n ? s.referencePriceSatang : s?.budgetSatang;
    body = (
      <>
        <ProjectView project={q.data} ocdsInPlan={features && features.includes("ocds_export")} />
        <div className="pd-team-actions">
          <AddToPipelineButton projectId={id} />
        </div>
        <PriceGuide projectId={id} savedBid={{ bidPrice: bahtOf(s?.bidPriceSatang, s?.bidPrice), reductionPercent: s?.reductionPercent }} />
        <InterestPanel projectId={id} baseSatang={base !== undefined ? Number(base) : null} />
      </>
    );
  }

  return (
    <div className="pd-page">
      <BackLink />
      {body}
    </div>
  );
}

/** A fixed sample project for checking the details layout (/project-test; contents not specified). */
export const sampleProject = () =>
  create(ProjectDetailSchema, {
    summary: {
      projectId: "69099722203",
      projectName: "ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก สายบ้านหนองบัว - บ้านโนนสะอาด หมู่ที่ ๔ ตำบลหนองบัว ด้วยวิธีประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
      deptName: "องค์การบริหารส่วนตำบลหนองบัว",
      deptSubName: "กองช่าง",
      ministryName: "กระทรวงมหาดไทย",
      provinceName: "อุดรธานี",
      methodName: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
      typeName: "จ้างก่อสร้าง",
      budgetYear: 2569,
      status: "awarded",
      statusName: "ประกาศผู้ชนะการเสนอราคา",
      budget: 4_850_000,
      referencePrice: 4_812_500,
      agreedPrice: 4_390_000,
      winnerName: "ห้างหุ้นส่วนจำกัด ทองคำบัว การโยธา",
    },
    description: "ก่อสร้างถนนคอนกรีตเสริมเหล็ก กว้าง ๕ เมตร ยาว ๑,๒๐๐ เมตร หนา ๐.๑๕ เมตร หรือพื้นที่ไม่น้อยกว่า ๖,๐๐๐ ตารางเมตร",
    announcements: [
      { typeCode: "P0", typeName: "แผนการจัดซื้อจัดจ้าง", date: "2026-06-02" },
      { typeCode: "15", typeName: "ประกาศราคากลาง", date: "2026-07-10" },
      { typeCode: "D0", typeName: "ประกาศเชิญชวน", date: "2026-07-15" },
      { typeCode: "W0", typeName: "ประกาศรายชื่อผู้ชนะการเสนอราคา", date: "2026-09-01" },
    ],
    contracts: [],
    source: "ตัวอย่าง",
  });

/** /project-test: a test page (contents not shown in the specification): the details view on a sample. */
export function ProjectTestPage() {
  usePageTitle(th.titles.projectTest);
  return (
    <div className="container pd-page pd-test">
      <div className="notice pd-test-notice">
        <p>
          <strong>{t.testTitle}</strong> — {t.testLead}
        </p>
      </div>
      <ProjectView project={sampleProject()} sample />
    </div>
  );
}
