import { useCallback, useEffect, useState } from "react";

/**
 * A seconds countdown against a wall-clock deadline (so a throttled tab still
 * shows the right time). docs/product.md#otp-countdown: running, then expired.
 */
export function useCountdown(initialSeconds: number) {
  const [deadline, setDeadline] = useState(() => Date.now() + Math.max(0, initialSeconds) * 1000);
  const compute = useCallback(() => Math.max(0, Math.ceil((deadline - Date.now()) / 1000)), [deadline]);
  const [secondsLeft, setSecondsLeft] = useState(compute);

  useEffect(() => {
    setSecondsLeft(compute());
    if (compute() <= 0) return;
    const id = setInterval(() => {
      const left = compute();
      setSecondsLeft(left);
      if (left <= 0) clearInterval(id);
    }, 1000);
    return () => clearInterval(id);
  }, [compute]);

  const reset = useCallback((seconds: number) => {
    setDeadline(Date.now() + Math.max(0, seconds) * 1000);
  }, []);

  return { secondsLeft, running: secondsLeft > 0, expired: secondsLeft <= 0, reset };
}
