// Endpoint URL guard (DECISIONS 14; WH-07): https to a public host only; every refused form once, and what passes.
import { describe, expect, it } from "vitest";
import { checkEndpointUrl, classifyIpAddress } from "../../shared/webhooks";

const PROD = { allowLoopback: false };
const DEV = { allowLoopback: true };

function refused(url: string, options = PROD): string {
  const result = checkEndpointUrl(url, options);
  if (result.ok) throw new Error(`${url} was accepted as ${result.url}`);
  return result.detail;
}

describe("checkEndpointUrl: accepted", () => {
  it.each([
    ["https://hooks.example.com/oc", "https://hooks.example.com/oc"],
    ["https://HOOKS.Example.com:8443/a?b=1#frag", "https://hooks.example.com:8443/a?b=1"],
    ["https://example.com:443/x", "https://example.com/x"],
    ["https://8.8.8.8/hook", "https://8.8.8.8/hook"],
    ["https://[2606:4700:4700::1111]/hook", "https://[2606:4700:4700::1111]/hook"],
    ["https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"],
    ["https://bücher.example/", "https://xn--bcher-kva.example/"],
    ["https://example.com./x", "https://example.com./x"],
  ])("%s", (url, normalised) => {
    expect(checkEndpointUrl(url, PROD)).toEqual({ ok: true, url: normalised });
  });
});

describe("checkEndpointUrl: refused in production", () => {
  it.each([
    ["http://hooks.example.com/", /https/],
    ["ftp://hooks.example.com/", /https/],
    ["javascript:alert(1)", /https/],
    ["hooks.example.com/path", /absolute/],
    ["https://user:pw@hooks.example.com/", /credentials/],
    ["https://user@hooks.example.com/", /credentials/],
    ["https://intranet/", /fully qualified/],
    [`https://example.com/${"a".repeat(2048)}`, /longer/],
    ["https://example.com:22/", /port 22/],
    ["https://example.com:80/", /port 80/],
  ])("%s", (url, detail) => {
    expect(refused(url)).toMatch(detail);
  });

  it.each([
    "localhost",
    "LOCALHOST.",
    "api.localhost",
    "printer.local",
    "metadata.google.internal",
    "router.home.arpa",
  ])("special-use name %s", (host) => {
    expect(refused(`https://${host}/hook`)).toMatch(/not a public name/);
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.254", "cgnat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "reserved"],
    ["[::1]", "loopback"],
    ["[::]", "unspecified"],
    ["[fe80::1]", "link-local"],
    ["[febf::1]", "link-local"],
    ["[fc00::1]", "unique-local"],
    ["[fd12:3456::1]", "unique-local"],
    ["[ff02::1]", "multicast"],
    ["[::ffff:127.0.0.1]", "ipv4-mapped"],
    ["[::ffff:8.8.8.8]", "ipv4-mapped"],
    ["[::127.0.0.1]", "reserved"],
    ["[64:ff9b::a00:1]", "reserved"],
    ["[fec0::1]", "reserved"],
    ["[2001:db8::1]", "documentation"],
    ["[2002:7f00:1::1]", "ipv4-embedding"],
  ])("IP literal %s (%s)", (host, kind) => {
    expect(refused(`https://${host}/hook`)).toMatch(new RegExp(`is a ${kind} address$`));
  });

  it.each([
    ["2130706433", "decimal"],
    ["0x7f000001", "hex"],
    ["0177.0.0.1", "octal"],
    ["127.1", "short"],
    ["0x7f.1", "hex short"],
    ["0x7F.0.0.01", "mixed"],
    ["%31%32%37.0.0.1", "percent-encoded"],
    ["0", "zero"],
    ["017700000001", "octal whole"],
    ["2852039166", "decimal metadata IP"],
  ])("numeric form %s (%s)", (host) => {
    expect(refused(`https://${host}/`)).toMatch(/is a (loopback|unspecified|link-local) address$/);
  });

  it("refuses http to loopback and private addresses without allowLoopback", () => {
    expect(refused("http://127.0.0.1:8787/hook")).toMatch(/https/);
    expect(refused("http://localhost:8787/hook")).toMatch(/https/);
  });
});

describe("checkEndpointUrl: allowLoopback (local dev and tests only)", () => {
  it.each([
    ["http://127.0.0.1:8799/hook", "http://127.0.0.1:8799/hook"],
    ["http://localhost:8799/hook", "http://localhost:8799/hook"],
    ["http://[::1]:8799/hook", "http://[::1]:8799/hook"],
    ["https://127.0.0.1/hook", "https://127.0.0.1/hook"],
    ["http://2130706433:8799/", "http://127.0.0.1:8799/"],
  ])("allows %s", (url, normalised) => {
    expect(checkEndpointUrl(url, DEV)).toEqual({ ok: true, url: normalised });
  });

  it.each([
    "http://10.0.0.1:8799/",
    "http://192.168.1.10/",
    "http://169.254.169.254/latest/meta-data",
    "http://api.localhost:8799/",
    "http://[::ffff:127.0.0.1]:8799/",
    "http://hooks.example.com/",
    "http://user:pw@127.0.0.1:8799/",
  ])("still refuses %s", (url) => {
    expect(checkEndpointUrl(url, DEV).ok).toBe(false);
  });

  it("keeps https and public hosts working", () => {
    expect(checkEndpointUrl("https://hooks.example.com/x", DEV)).toEqual({
      ok: true,
      url: "https://hooks.example.com/x",
    });
  });
});

describe("classifyIpAddress (also for DoH answers, WH-10)", () => {
  it("reads every numeric IPv4 form itself, without the URL parser", () => {
    for (const text of ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.1", "0x7f.0.0.1", "127.0.0.1."]) {
      expect(classifyIpAddress(text)).toBe("loopback");
    }
    expect(classifyIpAddress("169.254.169.254")).toBe("link-local");
    expect(classifyIpAddress("1.1.1.1")).toBe("public");
    expect(classifyIpAddress("100.63.255.255")).toBe("public");
    expect(classifyIpAddress("172.32.0.1")).toBe("public");
  });

  it("reads IPv6 forms, with or without brackets and with a dotted tail", () => {
    expect(classifyIpAddress("::1")).toBe("loopback");
    expect(classifyIpAddress("0:0:0:0:0:0:0:1")).toBe("loopback");
    expect(classifyIpAddress("::ffff:7f00:1")).toBe("ipv4-mapped");
    expect(classifyIpAddress("[::FFFF:169.254.169.254]")).toBe("ipv4-mapped");
    expect(classifyIpAddress("2606:4700:4700::1111")).toBe("public");
    expect(classifyIpAddress("2a00:1450:4001:82a::200e")).toBe("public");
  });

  it("answers null for names and malformed literals", () => {
    for (const text of ["example.com", "256.0.0.1", "1.2.3.4.5", "08.0.0.1", "1::2::3", "1:2:3:4:5:6:7:8:9", "::g"]) {
      expect(classifyIpAddress(text)).toBeNull();
    }
  });

  it("uses a maintained parser (ipaddr.js): hex-mapped, mixed and inet_aton forms of private addresses", () => {
    for (const [text, kind] of [
      ["[::ffff:a9fe:a9fe]", "ipv4-mapped"], // 169.254.169.254, the metadata service, written in hex
      ["[0:0:0:0:0:ffff:127.0.0.1]", "ipv4-mapped"],
      ["0x7f.1", "loopback"],
      ["0300.0250.0.1", "private"], // 192.168.0.1 in octal
      ["3232235521", "private"], // 192.168.0.1 as one number
      ["[2002:7f00:1::]", "ipv4-embedding"], // 6to4 of 127.0.0.1
      ["[2001:0:7f00:1::]", "ipv4-embedding"], // Teredo
    ] as const) {
      expect(classifyIpAddress(text), text).toBe(kind);
      expect(checkEndpointUrl(`https://${text}/hook`, { allowLoopback: false }).ok, text).toBe(false);
    }
  });
});
