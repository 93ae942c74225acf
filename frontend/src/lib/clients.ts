import { createClient, type Client } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";
import { AuthService } from "@/gen/auth/v1/auth_pb";
import { getAppTransport, type AppTransport } from "./transport";

const cache = new WeakMap<AppTransport, Map<string, unknown>>();

/** A typed connect-web client on the app transport (memoised per transport). */
export function getClient<S extends DescService>(service: S): Client<S> {
  const t = getAppTransport();
  let m = cache.get(t);
  if (!m) cache.set(t, (m = new Map<string, unknown>()));
  let c = m.get(service.typeName) as Client<S> | undefined;
  if (!c) m.set(service.typeName, (c = createClient(service, t.transport)));
  return c;
}

export const authClient = () => getClient(AuthService);
