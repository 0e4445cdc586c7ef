/**
 * Whether a test that needs the public Go module proxy or checksum database can run here: the
 * server answers within a few seconds. Offline, such tests are skipped with a message, except
 * in CI (CI set), where the network is part of the environment and its absence is a failure.
 */
export async function reachableOrCi(url: string): Promise<boolean> {
  if (process.env.CI) return true;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(8_000) });
    await response.body?.cancel();
    return true;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
    console.warn(`${new URL(url).host} is not reachable from this machine (${cause}): skipping the tests that need it`);
    return false;
  }
}
