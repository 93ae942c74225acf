import { useQuery } from "@tanstack/react-query";
import { Code, ConnectError } from "@connectrpc/connect";
import { getClient } from "@/lib/clients";
import { queryKeys } from "@/lib/query-keys";
import { ProjectsService } from "@/gen/projects/v1/projects_pb";

/** GetProject (login required): the project with its announcement steps and contracts. */
export function useProject(projectId: string | null) {
  return useQuery({
    queryKey: queryKeys.projects.detail(projectId),
    queryFn: async ({ signal }) => {
      const res = await getClient(ProjectsService).getProject({ projectId: projectId! }, { signal });
      if (!res.project) throw new ConnectError("Project not found", Code.NotFound);
      return res.project;
    },
    enabled: !!projectId,
    staleTime: 60_000,
  });
}

export function isNotFound(err: unknown): boolean {
  return ConnectError.from(err).code === Code.NotFound;
}

/** The OCDS 1.1 release of a project over the documented REST path. */
export function ocdsUrl(projectId: string): string {
  return `/app/backend/api/v1/projects/${encodeURIComponent(projectId)}/ocds`;
}

/**
 * Download the OCDS release as a JSON file through the typed client (the
 * access token travels in the Authorization header, which a plain link
 * cannot send).
 */
export async function downloadOcds(projectId: string): Promise<void> {
  const res = await getClient(ProjectsService).exportOcds({ projectId });
  const blob = new Blob([JSON.stringify(res.release ?? {}, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = `${projectId}.ocds.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
