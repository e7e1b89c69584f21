/** One GET, its milliseconds (the body read to the end); anything but 200 fails the bench. */
export async function timeOnce(url: string, headers: Record<string, string>): Promise<number> {
  const t = process.hrtime.bigint();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
