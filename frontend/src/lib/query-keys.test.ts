import { describe, expect, it } from "vitest";
import { hashKey, partialMatchKey, QueryClient, type QueryKey } from "@tanstack/react-query";
import { queryKeys } from "./query-keys";

const req = { page: 2, perPage: 20, sort: "date", keyword: "ถนน" };

/** One key of every kind, with the group prefix it must start with. */
const samples: [string, QueryKey, QueryKey][] = [
  ["session.restore", queryKeys.session.restore(), queryKeys.session.all],
  ["projects.lists", queryKeys.projects.lists(), queryKeys.projects.all],
  ["projects.list", queryKeys.projects.list(req), queryKeys.projects.lists()],
  ["projects.detail", queryKeys.projects.detail("p1"), queryKeys.projects.all],
  ["projects.dropdownData", queryKeys.projects.dropdownData(), queryKeys.projects.all],
  ["interests.one", queryKeys.interests.one("p1"), queryKeys.interests.all],
  ["interests.lists", queryKeys.interests.lists(), queryKeys.interests.all],
  ["interests.list(active)", queryKeys.interests.list(false), queryKeys.interests.lists()],
  ["interests.list(archived)", queryKeys.interests.list(true), queryKeys.interests.lists()],
  ["interests.comments", queryKeys.interests.comments("p1"), queryKeys.interests.all],
  ["subscription.tiers", queryKeys.subscription.tiers(), queryKeys.subscription.all],
];

describe("queryKeys", () => {
  it("keeps the key values the app used before the factory (cached and invalidated queries still meet)", () => {
    expect(queryKeys.session.restore()).toEqual(["session", "restore"]);
    expect(queryKeys.projects.list(req)).toEqual(["projects", "list", req]);
    expect(queryKeys.projects.detail("p1")).toEqual(["projects", "detail", "p1"]);
    expect(queryKeys.projects.detail(null)).toEqual(["projects", "detail", null]);
    expect(queryKeys.projects.dropdownData()).toEqual(["projects", "dropdown-data"]);
    expect(queryKeys.interests.one("p1")).toEqual(["interests", "one", "p1"]);
    expect(queryKeys.interests.list(false)).toEqual(["interests", "list", "active"]);
    expect(queryKeys.interests.list(true)).toEqual(["interests", "list", "archived"]);
    expect(queryKeys.interests.comments("p1")).toEqual(["interests", "comments", "p1"]);
    expect(queryKeys.subscription.tiers()).toEqual(["subscription.v1.SubscriptionService", "ListTiers", { includeAll: true }]);
  });

  it("is stable: the same arguments give the same hash, whatever the order of a request's fields", () => {
    expect(hashKey(queryKeys.interests.one("p1"))).toBe(hashKey(queryKeys.interests.one("p1")));
    const reordered = { keyword: "ถนน", sort: "date", perPage: 20, page: 2 };
    expect(hashKey(queryKeys.projects.list(reordered))).toBe(hashKey(queryKeys.projects.list(req)));
    expect(hashKey(queryKeys.projects.list({ ...req, page: 3 }))).not.toBe(hashKey(queryKeys.projects.list(req)));
    expect(hashKey(queryKeys.interests.list(true))).not.toBe(hashKey(queryKeys.interests.list(false)));
  });

  it.each(samples)("%s starts with its prefix", (_name, key, prefix) => {
    expect(partialMatchKey(key, prefix)).toBe(true);
  });

  it("groups do not overlap: no key of one group matches another group's prefix", () => {
    const groups = [queryKeys.session.all, queryKeys.projects.all, queryKeys.interests.all, queryKeys.subscription.all];
    for (const [, key, prefix] of samples) {
      const own = groups.filter((g) => partialMatchKey(key, g));
      expect(own).toHaveLength(1);
      expect(partialMatchKey(prefix, own[0])).toBe(true);
    }
  });

  it("invalidating a prefix reaches its children and nothing else", async () => {
    const qc = new QueryClient();
    for (const [, key] of samples) qc.setQueryData(key, "cached");
    const invalidated = () => samples.filter(([, key]) => qc.getQueryState(key)?.isInvalidated).map(([name]) => name);

    await qc.invalidateQueries({ queryKey: queryKeys.projects.lists(), refetchType: "none" });
    expect(invalidated()).toEqual(["projects.lists", "projects.list"]);

    await qc.invalidateQueries({ queryKey: queryKeys.interests.lists(), refetchType: "none" });
    expect(invalidated()).toEqual(["projects.lists", "projects.list", "interests.lists", "interests.list(active)", "interests.list(archived)"]);

    await qc.invalidateQueries({ queryKey: queryKeys.interests.all, refetchType: "none" });
    expect(invalidated()).toEqual(samples.filter(([name]) => /^(projects\.lists?|interests\.)/.test(name)).map(([name]) => name));
    qc.clear();
  });

  it("the logout sweep (everything outside session.all) keeps only the session restore", () => {
    const qc = new QueryClient();
    for (const [, key] of samples) qc.setQueryData(key, "cached");
    qc.removeQueries({ predicate: (q) => !partialMatchKey(q.queryKey, queryKeys.session.all) });
    expect(qc.getQueryCache().getAll().map((q) => q.queryKey)).toEqual([queryKeys.session.restore()]);
    qc.clear();
  });
});
