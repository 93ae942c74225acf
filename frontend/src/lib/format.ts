/** Buddhist-era dates and Thai baht, the way Thai bid managers read them. */
const dateFmt = new Intl.DateTimeFormat("th-TH-u-ca-buddhist", { day: "numeric", month: "short", year: "numeric" });
const longDateFmt = new Intl.DateTimeFormat("th-TH-u-ca-buddhist", { day: "numeric", month: "long", year: "numeric" });
const bahtFmt = new Intl.NumberFormat("th-TH", { style: "currency", currency: "THB", maximumFractionDigits: 0 });
const numberFmt = new Intl.NumberFormat("th-TH");

export function formatThaiDate(d: Date | string, long = false): string {
  const date = typeof d === "string" ? new Date(d) : d;
  return (long ? longDateFmt : dateFmt).format(date);
}

export function formatBaht(amount: number): string {
  return bahtFmt.format(amount);
}

export function formatNumber(n: number): string {
  return numberFmt.format(n);
}

/** mm:ss for the OTP countdown. */
export function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
