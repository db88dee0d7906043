/**
 * The command-line client (`nestjs-a2a <command>`) against the demo on 127.0.0.1: every command,
 * readable and `--json` output, exit codes. Most cases call its entry point in-process; one runs
 * the built binary, as `npx nestjs-a2a` would.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { startHttpServer } from '../libs/a2a/src/net/testing/loopback-server.js';
import { FLAG_OPTIONS, VALUE_OPTIONS } from '../libs/a2a/src/cli/args.js';
import { EXIT_CODES, runCli } from '../libs/a2a/src/cli/cli.js';
import { v03SdkServerForSuite } from './support/a2a-js-v03-server.js';
import { startDemo, type RunningApp } from './support/demo-app.js';

const LOCAL = ['--allow-http', '--allow-private'];

let demo: RunningApp;
beforeAll(async () => {
  demo = await startDemo({ DEMO_API_KEYS: 'alice:cli-key-1' });
});
afterAll(() => demo.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

async function cli(args: string[], env: NodeJS.ProcessEnv = { CLI_E2E_KEY: 'cli-key-1' }): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env });
  return { code, stdout, stderr, lines: stdout.split('\n').filter((l) => l !== '') };
}

/** Authenticated against the demo's guard, from the environment. */
const AUTH = [...LOCAL, '--api-key-env', 'CLI_E2E_KEY'];

describe('nestjs-a2a (in-process)', () => {
  it('card: readable, and --json', async () => {
    const readable = await cli(['card', demo.url, ...LOCAL]);
    expect(readable.code).toBe(0);
    expect(readable.lines[0]).toBe('echo  (version 1.0.0)');
    expect(readable.stdout).toContain(`  JSONRPC    1.0  ${demo.url}/a2a/jsonrpc`);
    expect(readable.stdout).toContain('security: apiKey: API key in header "X-API-Key"');
    expect(readable.stdout).toMatch(/skills:\n {2}echo {2}Echo: Answers with the text/);

    const json = await cli(['card', `${demo.url}/agents/support/.well-known/agent-card.json`, ...LOCAL, '--json']);
    expect(json.code).toBe(0);
    expect(json.lines).toHaveLength(1);
    expect(JSON.parse(json.lines[0])).toMatchObject({ name: 'support', skills: [{ id: 'delegate' }] });
  });

  it('send: a message, a task, over either binding; --json prints the response', async () => {
    expect((await cli(['send', demo.url, 'hello', 'there', ...AUTH])).stdout).toBe('agent: echo: hello there\n');
    const task = await cli(['send', demo.url, '/task hi', ...AUTH, '--binding', 'rest']);
    expect(task.code).toBe(0);
    expect(task.lines[0]).toMatch(/^task \S+ {2}COMPLETED {2}\(context \S+\)$/);
    expect(task.lines[1]).toBe('  artifact "echo": echo: hi');
    const json = await cli(['send', demo.url, '/task hi', ...AUTH, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ text: 'echo: hi' }] }] } });
  });

  it('stream: every event as it arrives, with its id; --json one line per event', async () => {
    const readable = await cli(['stream', demo.url, '/task streamed', ...AUTH]);
    expect(readable.code).toBe(0);
    expect(readable.lines.map((l) => l.replace(/ {2}\S+$/, (m) => (l.startsWith('#1 ') ? '  <id>' : m)))).toEqual([
      '#1 task      SUBMITTED  <id>',
      '#2 status    WORKING',
      '#3 artifact  echo: streamed',
      '#4 status    COMPLETED',
    ]);
    const json = await cli(['stream', demo.url, '/task streamed', ...AUTH, '--json', '--binding', 'rest']);
    const events = json.lines.map((l) => JSON.parse(l));
    expect(events.map((e) => [e.id, Object.keys(e).find((k) => k !== 'id')])).toEqual([
      ['1', 'task'],
      ['2', 'statusUpdate'],
      ['3', 'artifactUpdate'],
      ['4', 'statusUpdate'],
    ]);
  });

  it('get, list, cancel, subscribe', async () => {
    const started = JSON.parse((await cli(['send', demo.url, '/task slow 400 later', ...AUTH, '--return-immediately', '--json'])).stdout).task;

    const subscribed = await cli(['subscribe', demo.url, started.id, ...AUTH]);
    expect(subscribed.code).toBe(0);
    expect(subscribed.lines[0]).toMatch(/^(#\d+ )?task {6}(SUBMITTED|WORKING) {2}/);
    expect(subscribed.lines[subscribed.lines.length - 1]).toMatch(/status {4}COMPLETED$/);
    const resumed = await cli(['subscribe', demo.url, started.id, ...AUTH, '--last-event-id', '2', '--json']);
    expect(resumed.lines.map((l) => JSON.parse(l).id)).toEqual(['3', '4']);

    const got = await cli(['get', demo.url, started.id, ...AUTH, '--history', '0']);
    expect(got.lines).toEqual([`task ${started.id}  COMPLETED  (context ${started.contextId})`, '  artifact "echo": echo: later']);

    const listed = await cli(['list', demo.url, ...AUTH, '--context', started.contextId]);
    expect(listed.lines).toEqual([expect.stringMatching(new RegExp(`^${started.id} {2}COMPLETED {2}\\S+ {2}context ${started.contextId}$`)), '(1 of 1 tasks)']);
    const listedJson = await cli(['list', demo.url, ...AUTH, '--status', 'completed', '--page-size', '1', '--json']);
    expect(JSON.parse(listedJson.stdout)).toMatchObject({ pageSize: 1, tasks: [{ status: { state: 'TASK_STATE_COMPLETED' } }] });

    const running = JSON.parse((await cli(['send', demo.url, '/task slow 5000 x', ...AUTH, '--return-immediately', '--json'])).stdout).task;
    const canceled = await cli(['cancel', demo.url, running.id, ...AUTH]);
    expect(canceled.lines[0]).toBe(`task ${running.id}  CANCELED  (context ${running.contextId})`);
  });

  it('tools: what PeerToolProvider would expose', async () => {
    const readable = await cli(['tools', demo.url, ...LOCAL]);
    expect(readable.code).toBe(0);
    expect(readable.lines[0]).toBe('echo__echo');
    expect(readable.lines[1]).toMatch(/^ {2}Echo: Answers with the text it was sent/);
    expect(readable.lines[2]).toBe('  input: text (string, required), contextId (string), taskId (string), data (object)');
    const json = await cli(['tools', `${demo.url}/agents/support`, ...LOCAL, '--json', '--name', 'helpdesk']);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'helpdesk__delegate', description: expect.stringMatching(/^Delegate: /), inputSchema: expect.objectContaining({ required: ['text'] }), peer: 'helpdesk', skill: 'delegate' },
    ]);
    expect(JSON.parse((await cli(['tools', demo.url, ...LOCAL, '--json', '--allow', 'nothing*'])).stdout)).toEqual([]);
  });

  it('errors: exit 1 with the class and message; --json on stderr; secrets never on the command line (exit 2)', async () => {
    const unauthenticated = await cli(['send', demo.url, 'hi', ...LOCAL]);
    expect(unauthenticated.code).toBe(1);
    expect(unauthenticated.stderr).toMatch(/^UnauthenticatedError: /);
    const notFound = await cli(['get', demo.url, 'no-such-task', ...AUTH, '--json']);
    expect(notFound.code).toBe(1);
    expect(JSON.parse(notFound.stderr)).toEqual({ error: { name: 'TaskNotFoundError', message: expect.any(String) } });
    expect(notFound.stdout).toBe('');

    const down = await cli(['card', 'http://127.0.0.1:1/?token=SECRET-zz', ...LOCAL]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('token=REDACTED');
    expect(down.stderr).not.toContain('SECRET-zz');

    for (const args of [
      [],
      ['frobnicate', demo.url],
      ['send', demo.url],
      ['get', demo.url],
      ['card', 'not-a-url'],
      ['card', demo.url, '--nope'],
      ['send', demo.url, 'hi', '--header', 'Authorization: Bearer abc'],
      ['send', demo.url, 'hi', '--bearer-env', 'CLI_E2E_UNSET'],
      ['send', demo.url, 'hi', '--binding', 'grpc'],
      ['list', demo.url, '--status', 'sleeping'],
    ]) {
      const run = await cli(args);
      expect([args, run.code]).toEqual([args, 2]);
      expect(run.stdout).toBe('');
    }
    expect((await cli(['send', demo.url, 'hi', '--header', 'Authorization: Bearer abc'])).stderr).toMatch(/secrets do not go on the command line/);
    expect((await cli(['--help'])).stdout).toMatch(/^Usage: nestjs-a2a <command> \[options\]/);
  });
});

describe('nestjs-a2a: the address you typed, exit codes, credentials, --help', () => {
  it('card and send work on the http://127.0.0.1 origin typed, with a one-line notice on stderr', async () => {
    const card = await cli(['card', demo.url]);
    expect(card.code).toBe(0);
    expect(card.lines[0]).toBe('echo  (version 1.0.0)');
    expect(card.stderr).toBe(`nestjs-a2a: trusting ${demo.url}, the address you gave (plain http, a loopback address); other URLs its card names must pass the egress policy (--allow-http, --allow-private)\n`);
    const sent = await cli(['send', demo.url, 'hello', '--api-key-env', 'CLI_E2E_KEY']);
    expect(sent.stdout).toBe('agent: echo: hello\n');
    const json = await cli(['card', demo.url, '--json']);
    expect(JSON.parse(json.stderr)).toEqual({ notice: expect.stringContaining(`trusting ${demo.url}`) });
    // the flags that allow it anyway leave nothing to say
    expect((await cli(['card', demo.url, ...LOCAL])).stderr).toBe('');
  });

  it('the egress policy still applies to every other URL the card names', async () => {
    const elsewhere = await startDemo({ DEMO_API_KEYS: 'alice:cli-key-1', PUBLIC_URL: 'http://127.0.0.1:9' });
    try {
      const refused = await cli(['send', elsewhere.url, 'hello', '--api-key-env', 'CLI_E2E_KEY']);
      expect(refused.code).toBe(1);
      // the typed origin was trusted, its card's interface at another origin is not
      expect(refused.stderr).toMatch(/\nEgressRefusedError: egress refused for http:\/\/127\.0\.0\.1:9\/a2a\/\S+: scheme "http:" is not allowed/);
      expect(refused.stderr).toContain('--allow-http');
    } finally {
      await elsewhere.close();
    }
  });

  it('a task that ends FAILED, REJECTED or CANCELED exits 3, 4 or 5; cancel itself exits 0', async () => {
    expect((await cli(['send', demo.url, '/task hi', ...AUTH])).code).toBe(0);
    expect((await cli(['send', demo.url, '/ask', ...AUTH])).code).toBe(0);
    const failed = await cli(['send', demo.url, '/fail', ...AUTH]);
    expect([failed.code, failed.lines[1]]).toEqual([3, '  status: Failed as asked (/fail).']);
    expect((await cli(['stream', demo.url, '/fail', ...AUTH])).code).toBe(3);
    expect((await cli(['send', demo.url, '/reject', ...AUTH])).code).toBe(4);
    expect((await cli(['stream', demo.url, '/reject', ...AUTH, '--binding', 'rest'])).code).toBe(4);

    const running = JSON.parse((await cli(['send', demo.url, '/task slow 60000 x', ...AUTH, '--return-immediately', '--json'])).stdout).task;
    const subscribed = cli(['subscribe', demo.url, running.id, ...AUTH]);
    const canceled = await cli(['cancel', demo.url, running.id, ...AUTH]);
    expect(canceled.code).toBe(0);
    expect((await subscribed).code).toBe(5);
    expect((await cli(['get', demo.url, running.id, ...AUTH])).code).toBe(5);
  });

  it('refused credentials say which flag supplies them, from what the card asks for', async () => {
    const missing = await cli(['send', demo.url, 'hi', ...LOCAL]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'UnauthenticatedError: Authentication required: the credentials are missing or invalid\n' +
        '(the agent needs credentials: add --api-key-env VAR, VAR being the environment variable that holds the secret)\n',
    );
    const wrong = await cli(['get', demo.url, 'x', ...LOCAL, '--api-key-env', 'WRONG_KEY', '--json'], { WRONG_KEY: 'nope' });
    expect(JSON.parse(wrong.stderr).error).toEqual({
      name: 'UnauthenticatedError',
      message: expect.any(String),
      hint: '(the credentials sent were refused; its card asks for --api-key-env VAR, VAR being the environment variable that holds the secret)',
    });
  });

  it('--help lists every option the parser knows, and the exit codes', async () => {
    const help = (await cli(['--help'])).stdout;
    for (const option of [...VALUE_OPTIONS, ...FLAG_OPTIONS]) expect([option, help.includes(`--${option}`)]).toEqual([option, true]);
    for (const code of Object.values(EXIT_CODES)) expect(help).toMatch(new RegExp(`^ {2}${code} `, 'm'));
  });
});

describe('nestjs-a2a: credentials follow only the configured origin', () => {
  it('a card on another origin naming the demo: the key is withheld unless --credential-origin allows the demo', async () => {
    const card = (await (await fetch(`${demo.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    const cards = await startHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card)));
    try {
      const url = `http://127.0.0.1:${cards.port}`;
      const withheld = await cli(['send', url, 'hello', ...AUTH]);
      expect(withheld.code).toBe(1);
      expect(withheld.stderr).toMatch(/^CredentialsWithheldError: .*credentialOrigins/);
      expect(withheld.stderr).not.toContain('cli-key-1');
      expect((await cli(['send', url, 'hello', ...AUTH, '--credential-origin', demo.url])).stdout).toBe('agent: echo: hello\n');
      expect(cards.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
      expect((await cli(['send', url, 'hello', ...AUTH, '--credential-origin', 'nope'])).code).toBe(2);
    } finally {
      await cards.close();
    }
  });
});

describe('nestjs-a2a against an A2A 0.3 agent (@a2a-js/sdk 0.3 server)', () => {
  const server = v03SdkServerForSuite();

  it('card, send, stream, get, cancel, subscribe work unchanged; list says what 0.3 cannot do', async () => {
    const sdk = server();
    const card = await cli(['card', sdk.url, ...LOCAL]);
    expect(card.code).toBe(0);
    expect(card.lines[0]).toBe('sdk-v03-echo  (version 0.3.14)');
    expect(card.stdout).toContain(`  JSONRPC    0.3  ${sdk.url}/a2a/jsonrpc`);
    expect((await cli(['send', sdk.url, 'hello', ...LOCAL])).stdout).toBe('agent: echo: hello\n');
    const task = await cli(['send', sdk.url, '/task hi', ...LOCAL, '--binding', 'rest']);
    expect(task.lines).toEqual([expect.stringMatching(/^task \S+ {2}COMPLETED {2}\(context \S+\)$/), '  artifact "echo": echo: hi']);
    const streamed = await cli(['stream', sdk.url, '/task streamed', ...LOCAL]);
    expect(streamed.lines.map((l) => l.replace(/ {2}\S+$/, (m) => (l.startsWith('task ') ? '  <id>' : m)))).toEqual(['task      SUBMITTED  <id>', 'status    WORKING', 'artifact  echo: streamed  (last chunk)', 'status    COMPLETED']);

    const started = JSON.parse((await cli(['send', sdk.url, '/task slow 400 later', ...LOCAL, '--return-immediately', '--json'])).stdout).task;
    const subscribed = await cli(['subscribe', sdk.url, started.id, ...LOCAL]);
    expect(subscribed.lines[subscribed.lines.length - 1]).toBe('status    COMPLETED');
    expect((await cli(['get', sdk.url, started.id, ...LOCAL])).lines).toEqual([`task ${started.id}  COMPLETED  (context ${started.contextId})`, '  artifact "echo": echo: later']);
    const running = JSON.parse((await cli(['send', sdk.url, '/task slow 5000 x', ...LOCAL, '--return-immediately', '--json'])).stdout).task;
    expect((await cli(['cancel', sdk.url, running.id, ...LOCAL])).lines[0]).toBe(`task ${running.id}  CANCELED  (context ${running.contextId})`);

    const listed = await cli(['list', sdk.url, ...LOCAL]);
    expect(listed.code).toBe(EXIT_CODES.failed);
    expect(listed.stderr).toMatch(/^UnsupportedOperationError: .*A2A 0\.3, which has no ListTasks/);
    expect((await cli(['tools', sdk.url, ...LOCAL])).lines[0]).toBe('sdk-v03-echo__echo');
  });
});

const run = promisify(execFile);

describe('nestjs-a2a (the built binary)', () => {
  it('runs as `node libs/a2a/dist/cli/main.js`, with the exit code of the call', async () => {
    await run('npx', ['tsc', '-p', 'libs/a2a/tsconfig.lib.json'], { cwd: process.cwd() });
    const { stdout } = await run(process.execPath, ['libs/a2a/dist/cli/main.js', 'send', demo.url, 'hello', ...AUTH], { env: { ...process.env, CLI_E2E_KEY: 'cli-key-1' } });
    expect(stdout).toBe('agent: echo: hello\n');
    const failed = await run(process.execPath, ['libs/a2a/dist/cli/main.js', 'get', demo.url, 'nope', ...AUTH], { env: { ...process.env, CLI_E2E_KEY: 'cli-key-1' } }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringMatching(/^TaskNotFoundError: /) });
  }, 120_000);

  it('npm run a2a compiles nothing when the build is fresh', async () => {
    await run('npx', ['tsc', '-b', 'libs/a2a/tsconfig.lib.json'], { cwd: process.cwd() });
    const builtAt = (await stat('libs/a2a/dist/cli/cli.js')).mtimeMs;
    const { stdout } = await run('npm', ['run', '--silent', 'a2a', '--', '--help'], { cwd: process.cwd() });
    expect(stdout).toMatch(/^Usage: nestjs-a2a/);
    expect((await stat('libs/a2a/dist/cli/cli.js')).mtimeMs).toBe(builtAt);
  }, 120_000);

  it('piped into head, as people use it: the reader leaves after one line and the command ends quietly', async () => {
    await run('npx', ['tsc', '-b', 'libs/a2a/tsconfig.lib.json'], { cwd: process.cwd() });
    // the artifact and the final status come after the wait, when head has long gone: those writes meet a closed pipe
    const script = `node libs/a2a/dist/cli/main.js stream ${demo.url} '/task slow 300 piped' --api-key-env CLI_E2E_KEY --json 2>stderr.txt | head -n 1; echo "exit=\${PIPESTATUS[0]}"; cat stderr.txt; rm stderr.txt`;
    const { stdout } = await run('bash', ['-c', script], { cwd: process.cwd(), env: { ...process.env, CLI_E2E_KEY: 'cli-key-1' } });
    const [first, exit, ...stderr] = stdout.split('\n');
    expect(JSON.parse(first)).toMatchObject({ id: '1', task: { status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect(exit).toBe('exit=0');
    expect(stderr.filter((line) => line !== '' && !line.includes('"notice"'))).toEqual([]);
  }, 120_000);
});
