import { isIP } from "node:net";

/**
 * Which IP addresses outbound requests may reach. Addresses are compared as integers against CIDR
 * ranges; IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 (64:ff9b::/96) IPv6 addresses are
 * judged by the IPv4 address they carry, so no spelling of a private address slips through.
 */
export type AddressClass = "public" | "private" | "loopback" | "link_local" | "metadata" | "unroutable";

type Range = { base: bigint; bits: number; width: 32 | 128; cls: AddressClass };

function v4ToBig(ip: string): bigint {
  return ip.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBig(ip: string): bigint {
  let text = ip.toLowerCase().replace(/^\[|\]$/g, "").split("%")[0]!;
  const v4tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4tail) {
    const n = v4ToBig(v4tail[1]!);
    text = text.slice(0, -v4tail[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
}

function range(cidr: string, cls: AddressClass): Range {
  const [ip, bits] = cidr.split("/") as [string, string];
  const width = isIP(ip) === 4 ? 32 : 128;
  return { base: width === 32 ? v4ToBig(ip) : v6ToBig(ip), bits: Number(bits), width, cls };
}

// Most specific first: the first match decides.
const RANGES: Range[] = [
  range("169.254.169.254/32", "metadata"),
  range("100.100.100.200/32", "metadata"),
  range("fd00:ec2::254/128", "metadata"),
  range("0.0.0.0/8", "unroutable"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "private"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link_local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "private"),
  range("192.0.2.0/24", "unroutable"),
  range("192.88.99.0/24", "unroutable"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "private"),
  range("198.51.100.0/24", "unroutable"),
  range("203.0.113.0/24", "unroutable"),
  range("224.0.0.0/4", "unroutable"),
  range("240.0.0.0/4", "unroutable"),
  range("::/128", "unroutable"),
  range("::1/128", "loopback"),
  range("fc00::/7", "private"),
  range("fe80::/10", "link_local"),
  range("fec0::/10", "private"),
  range("ff00::/8", "unroutable"),
  range("2001:db8::/32", "unroutable"),
  range("100::/64", "unroutable"),
];

function embeddedV4(n: bigint): bigint | null {
  const high96 = n >> 32n;
  if (high96 === 0xffffn) return n & 0xffffffffn; // ::ffff:a.b.c.d
  if (high96 === 0n && n > 1n) return n; // ::a.b.c.d (deprecated IPv4-compatible)
  if (n >> 32n === 0x64ff9bn << 64n) return n & 0xffffffffn; // 64:ff9b::/96 NAT64
  return null;
}

function match(n: bigint, width: 32 | 128): AddressClass {
  for (const r of RANGES) {
    if (r.width !== width) continue;
    const shift = BigInt(width - r.bits);
    if (n >> shift === r.base >> shift) return r.cls;
  }
  return "public";
}

/** Classifies a literal IP address (v4 or v6, brackets allowed). Non-IP input is "unroutable". */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, "");
  const kind = isIP(bare.split("%")[0]!);
  if (kind === 4) return match(v4ToBig(bare), 32);
  if (kind === 6) {
    const n = v6ToBig(bare);
    const v4 = embeddedV4(n);
    return v4 !== null ? match(v4, 32) : match(n, 128);
  }
  return "unroutable";
}

export interface NetworkPolicy {
  allowPrivateNetwork: boolean;
  allowHttp: boolean;
}

/** Null when the address may be contacted under the policy, else why not. */
export function addressRefusal(address: string, policy: NetworkPolicy): string | null {
  const cls = classifyAddress(address);
  if (cls === "public") return null;
  if (cls === "metadata" || cls === "unroutable") return `${address} is a ${cls === "metadata" ? "cloud metadata" : "non-routable"} address`;
  if (policy.allowPrivateNetwork) return null;
  return `${address} is a ${cls.replace("_", "-")} address (set CLIPYARD_ALLOW_PRIVATE_NETWORK=1 to allow LAN targets)`;
}
