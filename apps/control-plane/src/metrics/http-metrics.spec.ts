import type { HttpAdapterHost } from '@nestjs/core';
import { HttpMetrics } from './http-metrics.js';

describe('the HTTP request metrics', () => {
  it('are written as a Prometheus counter by status and a cumulative histogram by route', () => {
    const metrics = new HttpMetrics({} as HttpAdapterHost);
    metrics.count('GET', '/version', 200, 0.0004);
    metrics.count('GET', '/version', 200, 0.003);
    metrics.count('GET', '/version', 401, 20);
    metrics.count('POST', '/a"b', 400, 0.001);
    const lines = metrics.text().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE corral_http_requests_total counter',
        'corral_http_requests_total{method="GET",route="/version",status="200"} 2',
        'corral_http_requests_total{method="GET",route="/version",status="401"} 1',
        'corral_http_requests_total{method="POST",route="/a\\"b",status="400"} 1',
        '# TYPE corral_http_request_duration_seconds histogram',
        'corral_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/version"} 1',
        'corral_http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/version"} 1',
        'corral_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/version"} 2',
        'corral_http_request_duration_seconds_bucket{le="10",method="GET",route="/version"} 2',
        'corral_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/version"} 3',
        'corral_http_request_duration_seconds_count{method="GET",route="/version"} 3',
        'corral_http_request_duration_seconds_bucket{le="0.001",method="POST",route="/a\\"b"} 1',
      ]),
    );
    expect(lines.find((line) => line.startsWith('corral_http_request_duration_seconds_sum{method="GET"'))).toMatch(/ 20\.0034\d*$/);
  });
});
