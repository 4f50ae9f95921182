import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, isCommandName } from './catalog.js';
import { parseCommandRequest, parseCommandResult } from './command-requests.js';
import { encodeFrame, Frame, parseAgentFrame, parseControlPlaneFrame, parseFrame } from './frame.js';

// Golden frames: the wire as it is. A change to a schema that alters how any of them parses fails
// here, so a wire change is always a deliberate edit of a fixture too.
const FIXTURES = join(__dirname, '..', 'fixtures');
const filesIn = (folder: string) =>
  readdirSync(join(FIXTURES, folder))
    .filter((file) => file.endsWith('.json'))
    .sort();
const read = (folder: string, file: string): unknown => JSON.parse(readFileSync(join(FIXTURES, folder, file), 'utf8'));
const fieldOf = (value: unknown, field: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;

const FRAME_TYPES = Frame.options.map((option) => option.shape.type.value).sort();
const COMMAND_NAMES = Object.keys(COMMANDS).filter(isCommandName).sort();

describe('golden frames (fixtures/frames)', () => {
  it.each(filesIn('frames'))('%s parses to exactly itself and encodes back to it', (file) => {
    const json = read('frames', file);
    const parsed = parseFrame(json);
    expect(parsed).toStrictEqual({ ok: true, frame: json });
    if (!parsed.ok) return;
    expect(`${parsed.frame.type}.`).toBe(file.slice(0, parsed.frame.type.length + 1));
    expect(JSON.parse(encodeFrame(parsed.frame))).toStrictEqual(json);
  });

  it('has a golden file for every frame type and none for a type that does not exist', () => {
    const typesOfFiles = [...new Set(filesIn('frames').map((file) => file.split('.')[0]))].sort();
    expect(typesOfFiles).toStrictEqual(FRAME_TYPES);
  });
});

describe('golden commands (fixtures/commands)', () => {
  it('has a request and a result file for every command and no other files', () => {
    expect(filesIn('commands')).toStrictEqual(COMMAND_NAMES.flatMap((name) => [`${name}.request.json`, `${name}.result.json`]).sort());
  });

  it.each(COMMAND_NAMES)('%s: the request passes the catalog unchanged', (name) => {
    const json = read('commands', `${name}.request.json`);
    const parsed = parseControlPlaneFrame(json);
    expect(parsed).toStrictEqual({ ok: true, frame: json });
    if (!parsed.ok || parsed.frame.type !== 'request') throw new Error(`${name}.request.json is not a request frame`);
    expect(parsed.frame.command).toBe(name);
    expect(parseCommandRequest(parsed.frame)).toStrictEqual({ ok: true, request: { command: name, params: parsed.frame.params } });
  });

  it.each(COMMAND_NAMES)('%s: the result answers the request and passes the catalog unchanged', (name) => {
    const json = read('commands', `${name}.result.json`);
    const parsed = parseAgentFrame(json);
    expect(parsed).toStrictEqual({ ok: true, frame: json });
    if (!parsed.ok || parsed.frame.type !== 'result') throw new Error(`${name}.result.json is not a result frame`);
    expect(parsed.frame.id).toBe(fieldOf(read('commands', `${name}.request.json`), 'id'));
    expect(parseCommandResult(name, parsed.frame.result)).toStrictEqual({ ok: true, result: parsed.frame.result });
  });

  it.each(COMMAND_NAMES)('%s refuses a parameter it does not know, naming it', (name) => {
    const params = fieldOf(read('commands', `${name}.request.json`), 'params');
    const checked = parseCommandRequest({ command: name, params: Object.assign({}, params, { colour: 'blue' }) });
    expect(checked).toStrictEqual({ ok: false, code: 'invalid-params', message: expect.stringContaining('"colour"') });
  });
});
