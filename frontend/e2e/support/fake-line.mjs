// A local fake of LINE Login v2.1: authorize (auto-consent, redirect with a
// code), token exchange with PKCE S256 and HS256 ID tokens signed with the
// channel secret (iss https://access.line.me, aud = channel id, nonce).
import http from "node:http";
import crypto from "node:crypto";

const b64url = (buf) => Buffer.from(buf).toString("base64url");

export async function startFakeLine({ channelId, channelSecret }) {
  const codes = new Map();
  let nextUser = { sub: "U0000000000000000000000000000001", name: "LINE User", email: "", picture: "" };
  const log = [];

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const base = `http://127.0.0.1:${server.address().port}`;
    try {
      if (req.method === "GET" && url.pathname === "/oauth2/v2.1/authorize") {
        const q = url.searchParams;
        log.push({ path: url.pathname, query: Object.fromEntries(q) });
        if (q.get("client_id") !== channelId || q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256") {
          res.writeHead(400).end("bad authorize request");
          return;
        }
        const code = b64url(crypto.randomBytes(16));
        codes.set(code, { user: { ...nextUser }, nonce: q.get("nonce"), challenge: q.get("code_challenge"), redirect: q.get("redirect_uri") });
        const to = new URL(q.get("redirect_uri"));
        to.searchParams.set("code", code);
        to.searchParams.set("state", q.get("state"));
        res.writeHead(302, { Location: to.href }).end();
        return;
      }
      if (req.method === "POST" && url.pathname === "/oauth2/v2.1/token") {
        let body = "";
        for await (const c of req) body += c;
        const f = new URLSearchParams(body);
        const g = codes.get(f.get("code") ?? "");
        codes.delete(f.get("code") ?? "");
        const verifierOk = g && b64url(crypto.createHash("sha256").update(f.get("code_verifier") ?? "").digest()) === g.challenge;
        if (!g || !verifierOk || f.get("client_id") !== channelId || f.get("client_secret") !== channelSecret || f.get("redirect_uri") !== g.redirect) {
          res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant" }));
          return;
        }
        const now = Math.floor(Date.now() / 1000);
        const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
        const claims = {
          iss: "https://access.line.me",
          sub: g.user.sub,
          aud: channelId,
          exp: now + 3600,
          iat: now,
          nonce: g.nonce,
          name: g.user.name,
          picture: g.user.picture || `${base}/picture/${g.user.sub}.svg`,
          ...(g.user.email ? { email: g.user.email } : {}),
        };
        const payload = b64url(JSON.stringify(claims));
        const sig = b64url(crypto.createHmac("sha256", channelSecret).update(`${header}.${payload}`).digest());
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ access_token: b64url(crypto.randomBytes(16)), token_type: "Bearer", expires_in: 2592000, scope: "openid profile email", id_token: `${header}.${payload}.${sig}` }),
        );
        return;
      }
      if (req.method === "GET" && url.pathname.startsWith("/picture/")) {
        res.writeHead(200, { "content-type": "image/svg+xml", "access-control-allow-origin": "*" }).end(
          `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#06c755"/><circle cx="32" cy="25" r="12" fill="#fff"/><rect x="14" y="40" width="36" height="20" rx="10" fill="#fff"/></svg>`,
        );
        return;
      }
      res.writeHead(404).end();
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    authorizeUrl: `${base}/oauth2/v2.1/authorize`,
    tokenUrl: `${base}/oauth2/v2.1/token`,
    log,
    /** The LINE account the next authorize request signs in as. */
    setNextUser(u) {
      nextUser = { ...nextUser, ...u };
    },
    close: () => new Promise((r) => server.close(r)),
  };
}
