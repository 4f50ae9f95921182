import { jsonLogger } from './logger.js';

describe('the JSON log', () => {
  it('writes one object per line: time, level, msg, then the fields, errors as their message', () => {
    const lines: string[] = [];
    const logger = jsonLogger(
      (line) => lines.push(line),
      () => new Date('2026-05-04T09:31:02.000Z'),
    );
    logger.info('connected', { node: 'pve1', heartbeatMs: 2000 });
    logger.warn('cannot connect', { error: new Error('connect ECONNREFUSED 127.0.0.1:8006') });
    logger.error('stopped');
    expect(lines).toEqual([
      '{"time":"2026-05-04T09:31:02.000Z","level":"info","msg":"connected","node":"pve1","heartbeatMs":2000}\n',
      '{"time":"2026-05-04T09:31:02.000Z","level":"warn","msg":"cannot connect","error":"connect ECONNREFUSED 127.0.0.1:8006"}\n',
      '{"time":"2026-05-04T09:31:02.000Z","level":"error","msg":"stopped"}\n',
    ]);
  });

  it('keeps a message with line breaks on one line', () => {
    const lines: string[] = [];
    jsonLogger((line) => lines.push(line)).info('two\nlines', { text: 'a\nb' });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.trimEnd()).not.toContain('\n');
    expect(JSON.parse(lines[0] ?? '')).toEqual(expect.objectContaining({ msg: 'two\nlines', text: 'a\nb' }));
  });
});
