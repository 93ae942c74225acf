import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { Button } from "@/components/ui/button";
import { IconArrowRight, IconRadar } from "@/components/ui/icons";
import { selectUser, useAuthStore } from "@/stores/auth-store";
import { useDropdownData } from "../api/search-api";
import { defaultState, emptyCriteria, toSearchParams } from "../lib/criteria";
import { SAVE_ON_ARRIVAL, skipFirstStep } from "../lib/first-step";
import { MultiSelect } from "./multi-select";
import { addTags, splitTags, TagInput } from "./tag-input";
import "../search.css";
import "../first-step.css";

const t = th.firstStep;

/**
 * The first step of a new account: a first search, as keywords and
 * provinces, carried into the search page, whose save dialog opens on
 * arrival (name, normal or overnight, the plan's limits) over its results.
 */
export function FirstStep() {
  usePageTitle(t.title);
  const navigate = useNavigate();
  const user = useAuthStore(selectUser);
  const dropdowns = useDropdownData();
  const [keywords, setKeywords] = useState<string[]>([]);
  const [draft, setDraft] = useState("");
  const [provinces, setProvinces] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const or = addTags(keywords, splitTags(draft)).values;
    if (or.length === 0 && provinces.length === 0) {
      setError(t.required);
      return;
    }
    const sp = toSearchParams({ ...defaultState(), criteria: { ...emptyCriteria(), or, provinces } });
    void navigate(`/search?${sp.toString()}`, { state: SAVE_ON_ARRIVAL });
  };

  const skip = () => {
    if (user) skipFirstStep(user.idUser);
    void navigate("/search");
  };

  return (
    <section className="container first-step" data-testid="first-step" aria-labelledby="first-step-title">
      <div className="card first-step-card">
        <p className="eyebrow">
          <IconRadar size={16} /> {t.eyebrow}
        </p>
        <h1 id="first-step-title">{t.heading}</h1>
        <p className="lead">{t.lead}</p>
        <ol className="first-step-steps">
          {t.steps.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ol>
        <form className="form first-step-form" onSubmit={submit} noValidate data-testid="first-step-form">
          <TagInput
            label={t.keywords}
            values={keywords}
            onChange={(v) => {
              setError(null);
              setKeywords(v);
            }}
            draft={draft}
            onDraftChange={(v) => {
              setError(null);
              setDraft(v);
            }}
            placeholder={t.keywordsPlaceholder}
            large
            submitOnEnter
            testId="first-step-keywords"
          />
          <p className="field-hint">{t.keywordsHint}</p>
          <div className="first-step-examples">
            <span className="muted">{t.examples}</span>
            {t.exampleWords.map((w) => (
              <button
                key={w}
                type="button"
                className="chip first-step-example"
                aria-label={t.addExample(w)}
                disabled={keywords.includes(w)}
                // As the buttons below: the focus stays in the keyword box.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => {
                  setError(null);
                  setKeywords((k) => addTags(k, [w]).values);
                }}
              >
                {w}
              </button>
            ))}
          </div>
          <MultiSelect
            label={t.provinces}
            options={dropdowns.data?.provinces ?? []}
            values={provinces}
            onChange={(v) => {
              setError(null);
              setProvinces(v);
            }}
            loading={dropdowns.isPending}
            testId="first-step-provinces"
          />
          {error && (
            <p className="form-error" role="alert" data-testid="first-step-error">
              {error}
            </p>
          )}
          {/* The buttons keep the focus in the keyword box: its blur would add the
              half-typed word as a tag and move the button from under the finger,
              losing the tap. Submit reads the half-typed word itself. */}
          <div className="first-step-actions">
            <Button type="submit" size="lg" onMouseDown={(e) => e.preventDefault()} data-testid="first-step-submit">
              {t.submit} <IconArrowRight size={18} />
            </Button>
            <Button type="button" variant="ghost" size="lg" onMouseDown={(e) => e.preventDefault()} onClick={skip} data-testid="first-step-skip">
              {t.skip}
            </Button>
          </div>
          <p className="muted first-step-note">{t.skipHint}</p>
        </form>
      </div>
    </section>
  );
}
