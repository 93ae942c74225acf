import { describe, expect, it } from "vitest";
import { dataUrlBytes } from "./picture";

describe("dataUrlBytes", () => {
  it("counts the decoded bytes of a base64 data URL, padding included", () => {
    expect(dataUrlBytes("data:image/jpeg;base64," + btoa("abc"))).toBe(3);
    expect(dataUrlBytes("data:image/jpeg;base64," + btoa("abcd"))).toBe(4);
    expect(dataUrlBytes("data:image/jpeg;base64," + btoa("abcde"))).toBe(5);
    expect(dataUrlBytes("data:image/png;base64,")).toBe(0);
  });
});
