// A local SMTP catcher (npm smtp-server) that the stack sends its codes to.
import { SMTPServer } from "smtp-server";

/** Decode RFC 2047 encoded-words (=?UTF-8?B?...?= / =?UTF-8?Q?...?=). */
function decodeWords(s) {
  return s.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _cs, enc, text) => {
    if (enc.toUpperCase() === "B") return Buffer.from(text, "base64").toString("utf8");
    const bytes = text.replace(/_/g, " ").replace(/=([0-9A-Fa-f]{2})/g, (_m, h) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  });
}

function decodeQP(s) {
  const joined = s.replace(/=\r?\n/g, "");
  const bytes = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i], "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

function parseHeaders(block) {
  const h = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i > 0) h[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return h;
}

/** Minimal MIME: the decoded text of every text/* part. */
function parseMessage(raw) {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = parseHeaders(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const texts = [];
  const walk = (hdrs, content) => {
    const ct = hdrs["content-type"] ?? "text/plain";
    const boundary = /boundary="?([^";]+)"?/i.exec(ct)?.[1];
    if (/^multipart\//i.test(ct) && boundary) {
      for (const part of content.split(`--${boundary}`).slice(1)) {
        if (part.startsWith("--")) break;
        const p = part.replace(/^\r?\n/, "");
        const s = p.search(/\r?\n\r?\n/);
        walk(parseHeaders(p.slice(0, s)), p.slice(s).replace(/^\r?\n\r?\n/, ""));
      }
      return;
    }
    const cte = (hdrs["content-transfer-encoding"] ?? "").toLowerCase();
    let text = content;
    if (cte === "base64") text = Buffer.from(content.replace(/\s+/g, ""), "base64").toString("utf8");
    else if (cte === "quoted-printable") text = decodeQP(content);
    if (/^text\//i.test(ct)) texts.push(text.replace(/<[^>]+>/g, " "));
  };
  walk(headers, body);
  return { subject: decodeWords(headers.subject ?? ""), to: headers.to ?? "", text: texts.join("\n") };
}

export async function startMailCatcher() {
  const messages = [];
  const waiters = new Set();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    banner: "bidradar e2e",
    onData(stream, session, cb) {
      const chunks = [];
      stream.on("data", (c) => chunks.push(c));
      stream.on("end", () => {
        const msg = parseMessage(Buffer.concat(chunks).toString("utf8"));
        msg.rcpt = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        msg.code = /(?<!\d)(\d{6})(?!\d)/.exec(msg.text)?.[1] ?? null;
        messages.push(msg);
        for (const w of waiters) w();
        cb();
      });
    },
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const port = server.server.address().port;

  /** The next message to `email` after the first `skip` ones it received. */
  async function nextFor(email, { after = countFor(email), timeoutMs = 20_000 } = {}) {
    const addr = email.toLowerCase();
    const found = () => messages.filter((m) => m.rcpt.includes(addr))[after];
    const deadline = Date.now() + timeoutMs;
    while (!found()) {
      if (Date.now() > deadline) throw new Error(`no mail #${after + 1} for ${email} within ${timeoutMs} ms`);
      await new Promise((r) => {
        const w = () => (waiters.delete(w), r());
        waiters.add(w);
        setTimeout(w, 200);
      });
    }
    return found();
  }
  /** The first message to `email` from number `after` on (0-based) that `pred` accepts. */
  async function firstFor(email, pred, opts = {}) {
    for (let after = opts.after ?? countFor(email); ; after++) {
      const m = await nextFor(email, { ...opts, after });
      if (pred(m)) return m;
    }
  }
  function countFor(email) {
    return messages.filter((m) => m.rcpt.includes(email.toLowerCase())).length;
  }
  return {
    port,
    messages,
    countFor,
    nextFor,
    /** Wait for a code mailed to `email` (message number `after`, 0-based, or later). */
    // Security notices (two-step turned on, password changed) carry no code
    // and may arrive in between, since mail is sent after the answer: skip them.
    async codeFor(email, opts = {}) {
      return (await firstFor(email, (m) => m.code, opts)).code;
    },
    firstFor,
    close: () => new Promise((r) => server.close(r)),
  };
}
