import { useLayoutEffect, useRef, useState } from "react";
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { MoneyInput } from "./money-input";

/** A price and a field that sets it from outside (as the bid panel's percent does). */
function Pair({ seen }: { seen: string[] }) {
  const [price, setPrice] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  // What the price field shows when the page commits the new price.
  useLayoutEffect(() => {
    seen.push(box.current!.querySelector<HTMLInputElement>("[data-testid=price]")!.value);
  }, [price, seen]);
  return (
    <div ref={box}>
      <MoneyInput label="ราคา" value={price} onChange={setPrice} testId="price" />
      <input aria-label="ล้านบาท" onChange={(e) => setPrice(Number(e.target.value) * 1_000_000)} />
    </div>
  );
}

describe("MoneyInput", () => {
  it("groups thousands as typed and keeps the typed text while it means the value", () => {
    render(<Pair seen={[]} />);
    const price = screen.getByTestId<HTMLInputElement>("price");
    fireEvent.change(price, { target: { value: "1234567.8" } });
    expect(price.value).toBe("1,234,567.8");
    fireEvent.blur(price);
    expect(price.value).toBe("1,234,567.8");
  });

  it("a value set from outside is shown in the same commit, not a render later (a keystroke elsewhere updates it at once)", () => {
    const seen: string[] = [];
    render(<Pair seen={seen} />);
    fireEvent.change(screen.getByLabelText("ล้านบาท"), { target: { value: "1.236" } });
    expect(seen).toEqual(["", "1,236,000"]);
    expect(screen.getByTestId<HTMLInputElement>("price").value).toBe("1,236,000");
  });
});
