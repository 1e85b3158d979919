// OC Agent scopes: the reference grammar (§3.8), the canonical form, and each rule of the sub-scope relation (§3.9).
import { describe, expect, it } from "vitest";
import {
  canonicalizeScopes,
  canonicalScope,
  checkScopeRegistry,
  isGrantedBy,
  isSubScope,
  parseScope,
  type Scope,
} from "../../shared/envelopes/agent";

function scope(text: string): Scope {
  const parsed = parseScope(text);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.scope;
}

const canonical = (text: string) => canonicalScope(scope(text));

describe("scope grammar", () => {
  it("reads product, verb, operators, quoted and bare values", () => {
    expect(scope("ln:send(max_sats<=1000,node=03abc,method!=POST,kind>1,b>=2,c<3)").constraints).toEqual([
      { key: "max_sats", op: "<=", value: "1000", quoted: false },
      { key: "node", op: "=", value: "03abc", quoted: false },
      { key: "method", op: "!=", value: "POST", quoted: false },
      { key: "kind", op: ">", value: "1", quoted: false },
      { key: "b", op: ">=", value: "2", quoted: false },
      { key: "c", op: "<", value: "3", quoted: false },
    ]);
    expect(scope('lock:seal(mime="text/plain,\\"x\\"")').constraints[0]).toEqual({
      key: "mime",
      op: "=",
      value: 'text/plain,"x"',
      quoted: true,
    });
    expect(scope("mcp:invoke")).toEqual({ product: "mcp", verb: "invoke", constraints: [] });
  });

  it("reads the wildcard as key=* and the legacy key*", () => {
    expect(scope("http:request(origin=*)").constraints[0]).toEqual({
      key: "origin",
      op: "*",
      value: null,
      quoted: false,
    });
    expect(canonical("http:request(origin*)")).toBe("http:request(origin=*)");
  });

  it("tries operators in the reference order, each at its first occurrence", () => {
    // ">=" first: "a=b" before it is no key, so "=" wins and the value "b>=c" is not a bare token.
    expect(parseScope("x:y(a=b>=c)").ok).toBe(false);
    expect(scope("x:y(a=b:c/d@e+f-g.h_i)").constraints[0]?.value).toBe("b:c/d@e+f-g.h_i");
  });

  it.each([
    ["", "empty"],
    ["lock:seal(recipient bc1q)", "whitespace"],
    ["lock", "no verb"],
    ["Lock:Seal(recipient=x)", "upper case product"],
    ["lock:seal(recipient=,mime=text/plain)", "empty value"],
    ["lock:seal(a=1,a=2)", "duplicate key"],
    ["lock:seal(a=1", "unclosed list"],
    ["lock:seal(a=1,)", "empty constraint"],
    ['lock:seal(a="x"y")', "unescaped quote"],
    ['lock:seal(a="x)', "unterminated quote"],
    ["http:request(*)", "bare * (no key), as written in the docs"],
    ["lock:seal(a=x y)", "space in value"],
    ["lock:seal(a=x;y)", "character outside the bare token set"],
  ])("refuses %j (%s)", (text) => {
    expect(parseScope(text).ok).toBe(false);
  });
});

describe("canonical form", () => {
  it("sorts constraints by key and drops empty parentheses", () => {
    expect(canonical("ln:send(node=03abcdef,max_sats<=1000,max_fee_sats<=10)")).toBe(
      "ln:send(max_fee_sats<=10,max_sats<=1000,node=03abcdef)",
    );
    expect(canonical("lock:seal()")).toBe("lock:seal");
  });

  it("re-quotes quoted values with escapes and never changes case (discrepancy 9)", () => {
    expect(canonical('x:y(b="a\\\\b\\"c",a=MiXeD)')).toBe('x:y(a=MiXeD,b="a\\\\b\\"c")');
  });

  it("sorts the list by code units after canonicalising each scope", () => {
    const list = canonicalizeScopes(["stamp:sign(mime=text/markdown)", "lock:seal(b=1,a=2)", "ln:send"]);
    expect(list).toEqual({ ok: true, scopes: ["ln:send", "lock:seal(a=2,b=1)", "stamp:sign(mime=text/markdown)"] });
    expect(canonicalizeScopes(["ok:fine", "bad scope"])).toMatchObject({
      ok: false,
      detail: expect.stringContaining("scopes[1]"),
    });
  });
});

describe("isSubScope (§3.9)", () => {
  it("needs the same product and verb", () => {
    expect(isSubScope("lock:seal", "lock:seal")).toBe(true);
    expect(isSubScope("lock:chat", "lock:seal")).toBe(false);
    expect(isSubScope("stamp:seal", "lock:seal")).toBe(false);
  });

  it("wildcard: no requirement", () => {
    expect(isSubScope("http:request(origin=https://a.example)", "http:request(origin=*)")).toBe(true);
    expect(isSubScope("http:request", "http:request(origin=*)")).toBe(true);
  });

  it("=: the same (unquoted) value with =", () => {
    expect(isSubScope("lock:seal(recipient=alice)", "lock:seal(recipient=alice)")).toBe(true);
    expect(isSubScope('lock:seal(recipient="alice")', "lock:seal(recipient=alice)")).toBe(true);
    expect(isSubScope("lock:seal(recipient=mallory)", "lock:seal(recipient=alice)")).toBe(false);
    expect(isSubScope("lock:seal", "lock:seal(recipient=alice)")).toBe(false);
    expect(isSubScope("lock:seal(recipient=*)", "lock:seal(recipient=alice)")).toBe(false);
  });

  it("!=: = with another value, or != with the same value", () => {
    expect(isSubScope("http:request(method=GET)", "http:request(method!=POST)")).toBe(true);
    expect(isSubScope("http:request(method=POST)", "http:request(method!=POST)")).toBe(false);
    expect(isSubScope("http:request(method!=POST)", "http:request(method!=POST)")).toBe(true);
    expect(isSubScope("http:request(method!=PUT)", "http:request(method!=POST)")).toBe(false);
  });

  it("ordered operators: integer ranges, exercised inside granted", () => {
    const granted = "ln:send(max_sats<=1000)";
    expect(isSubScope("ln:send(max_sats=500,node=03abc)", granted)).toBe(true);
    expect(isSubScope("ln:send(max_sats=5000)", granted)).toBe(false);
    expect(isSubScope("ln:send(max_sats<1001)", granted)).toBe(true);
    expect(isSubScope("ln:send(max_sats<=1001)", granted)).toBe(false);
    expect(isSubScope("ln:send(max_sats<=999)", "ln:send(max_sats<1000)")).toBe(true);
    expect(isSubScope("ln:send(max_sats<=1000)", "ln:send(max_sats<1000)")).toBe(false);
    expect(isSubScope("nostr:publish(kind>=2)", "nostr:publish(kind>1)")).toBe(true);
    expect(isSubScope("nostr:publish(kind>=1)", "nostr:publish(kind>1)")).toBe(false);
    expect(isSubScope("nostr:publish(kind>5)", "nostr:publish(kind>=5)")).toBe(true);
    expect(isSubScope("ln:send(max_sats>=1)", granted)).toBe(false);
  });

  it("ordered operators need a numeric key, decimal integers and a bounded exercised op", () => {
    expect(isSubScope("vote:cast(poll_id<=3)", "vote:cast(poll_id<=5)")).toBe(false);
    expect(isSubScope("ln:send(max_sats=1e2)", "ln:send(max_sats<=1000)")).toBe(false);
    expect(isSubScope("ln:send(max_sats=500)", "ln:send(max_sats<=abc)")).toBe(false);
    expect(isSubScope("ln:send(max_sats!=5)", "ln:send(max_sats<=1000)")).toBe(false);
    expect(isSubScope("ln:send(max_sats=*)", "ln:send(max_sats<=1000)")).toBe(false);
    expect(isSubScope("ln:send", "ln:send(max_sats<=1000)")).toBe(false);
  });

  it("allows extra keys on the exercised side; an unparsable scope is never a sub-scope", () => {
    expect(isSubScope("lock:seal(recipient=alice,mime=text/plain)", "lock:seal(recipient=alice)")).toBe(true);
    expect(isSubScope("lock:seal(recipient alice)", "lock:seal")).toBe(false);
  });

  it("an exercised scope passes if at least one grant admits it", () => {
    const grants = ["lock:seal(recipient=alice)", "lock:seal(recipient=bob)"];
    expect(isGrantedBy("lock:seal(recipient=bob)", grants)).toBe(true);
    expect(isGrantedBy("lock:seal(recipient=carol)", grants)).toBe(false);
  });
});

describe("registry (§3.8 table)", () => {
  it("strict refuses unknown scopes and keys; permissive accepts them", () => {
    expect(checkScopeRegistry(scope("ln:send(max_sats<=1)"), "strict")).toEqual({ ok: true });
    expect(checkScopeRegistry(scope("anthropic:tool(name=search)"), "strict")).toMatchObject({ ok: false });
    expect(checkScopeRegistry(scope("ln:send(colour=red)"), "strict")).toMatchObject({ ok: false });
    expect(checkScopeRegistry(scope("anthropic:tool(name=search)"), "permissive")).toEqual({ ok: true });
  });
});
