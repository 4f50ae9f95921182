// `GET /metrics` at a guest count (docs/benchmarks.md "Metrics scrapes"): scraped one after another,
// as Prometheus does, with root's token; the time of each scrape from request to the whole body.
import { fetchInsecure, median, progress } from './bench-support.mjs';

const SCRAPES = 50;

/** Scrapes `replica` `SCRAPES` times; resolves with the body's size and the median and slowest time in ms. */
export async function measureScrape(replica, authorization) {
  const url = `${replica.api}/metrics`;
  progress(`GET /metrics, ${SCRAPES} scrapes one after another`);
  const times = [];
  let bytes = 0;
  for (let scrape = 0; scrape < SCRAPES; scrape++) {
    const startedAt = performance.now();
    const response = await fetchInsecure(url, { headers: { authorization } });
    times.push(performance.now() - startedAt);
    if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${response.text.slice(0, 200)}`);
    bytes = response.text.length;
  }
  return { bytes, median: median(times), max: Math.max(...times) };
}
