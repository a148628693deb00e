import { describe, expect, test } from "bun:test";
import { addressRefusal, classifyAddress } from "../../../src/net/ip-policy.ts";
import { checkUrl, OutboundRefused } from "../../../src/net/safe-fetch.ts";

const strict = { allowPrivateNetwork: false, allowHttp: false };
const lan = { allowPrivateNetwork: true, allowHttp: true };

describe("address classes", () => {
  test.each([
    ["8.8.8.8", "public"], ["1.1.1.1", "public"], ["2606:4700:4700::1111", "public"],
    ["127.0.0.1", "loopback"], ["127.255.0.9", "loopback"], ["::1", "loopback"], ["[::1]", "loopback"],
    ["10.1.2.3", "private"], ["172.16.0.1", "private"], ["172.31.255.255", "private"], ["192.168.1.10", "private"], ["100.64.0.1", "private"],
    ["fc00::1", "private"], ["fd12:3456::1", "private"],
    ["169.254.1.1", "link_local"], ["fe80::1", "link_local"],
    ["169.254.169.254", "metadata"], ["fd00:ec2::254", "metadata"],
    ["0.0.0.0", "unroutable"], ["::", "unroutable"], ["224.0.0.1", "unroutable"], ["ff02::1", "unroutable"],
    ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"], ["::ffff:10.0.0.1", "private"], ["::ffff:169.254.169.254", "metadata"],
    ["64:ff9b::7f00:1", "loopback"], ["::127.0.0.1", "loopback"], ["::ffff:8.8.8.8", "public"],
    ["not-an-ip", "unroutable"],
  ])("%s is %s", (addr, cls) => {
    expect(classifyAddress(addr)).toBe(cls as any);
  });
});

describe("policy", () => {
  test("private, loopback and link-local are refused unless the operator allows the LAN", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "fe80::1", "::ffff:192.168.0.1"]) {
      expect(addressRefusal(a, strict)).not.toBeNull();
      expect(addressRefusal(a, lan)).toBeNull();
    }
  });
  test("metadata and unroutable addresses are refused even on a LAN", () => {
    for (const a of ["169.254.169.254", "0.0.0.0", "::", "224.0.0.1"]) expect(addressRefusal(a, lan)).not.toBeNull();
  });
});

describe("URL spellings of forbidden hosts are caught before connecting", () => {
  test.each([
    "https://127.0.0.1/", "https://2130706433/", "https://0x7f000001/", "https://0x7f.0.0.1/", "https://017700000001/",
    "https://127.1/", "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/", "https://[0:0:0:0:0:ffff:127.0.0.1]/",
    "https://169.254.169.254/latest/meta-data/", "https://0/", "https://10.0.0.1/", "https://192.168.1.1/",
  ])("%s", (url) => {
    expect(() => checkUrl(url, strict)).toThrow(OutboundRefused);
  });
  test("schemes and credentials", () => {
    expect(() => checkUrl("http://example.com/", strict)).toThrow(/http/);
    expect(() => checkUrl("file:///etc/passwd", lan)).toThrow();
    expect(() => checkUrl("https://u:p@example.com/", strict)).toThrow(/credentials/);
    expect(checkUrl("http://127.0.0.1:9/x", lan).hostname).toBe("127.0.0.1");
  });
});
