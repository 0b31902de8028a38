// `wagerline upload`: the operators' upload client (docs/upload-client.md). Reads a bets file,
// sends it race by race, prints one JSON summary on stdout; a progress bar on stderr when it is a
// terminal. Exit 0: every batch accepted; 1: a batch rejected or failed, or the run stopped;
// 2: bad arguments or an unreadable file (nothing sent).
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { MAX_BATCH, toBatches } from '../../tools/uploader/batches.ts';
import { BetsFileError, decodeBetsFile, detectFormat, readBets, type FileBet, type FileFormat } from '../../tools/uploader/read-bets.ts';
import { uploadBatches } from '../../tools/uploader/uploader.ts';
import { redactUrlCredentials } from '../../net/redact-url.ts';
import { startProgress } from '../progress.ts';
import { daysToMoveNotAfter, shiftDate } from '../../racing/redate.ts';
import { dateOption, describeError, emit, fail, fileError } from '../run.ts';

interface Opts {
  file: string; apiUrl: string; authUrl: string; clientId: string; clientSecret: string; v1?: boolean;
  format?: FileFormat; batchSize: number; concurrency: number; retries: number; timeout: number; date?: string;
}

function intIn(min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}

function httpUrl(name: string, raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Quoted for the operator to spot the typo, without a credential it may carry.
    return fail(`${name} is not a URL: "${redactUrlCredentials(raw)}"`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`${name} must be an http:// or https:// URL`, 2);
}

/** The bets with their `time` moved so that the earliest bet's day is `date`, or the day before if that put a bet in the future. */
function redatedBets(bets: FileBet[], date: string): FileBet[] {
  const days = daysToMoveNotAfter(bets.map((b) => b.bet.time), date, new Date());
  return bets.map((b) => (typeof b.bet.time === 'string' ? { ...b, bet: { ...b.bet, time: shiftDate(b.bet.time, days) } } : b));
}

async function run(opts: Opts): Promise<void> {
  httpUrl('--api-url', opts.apiUrl);
  httpUrl('--auth-url', opts.authUrl);
  const version = opts.v1 ? 1 : 2;
  let bytes: Buffer;
  try {
    bytes = opts.file === '-' ? await readStdin() : await readFile(opts.file);
  } catch (error) {
    return fail(fileError(opts.file, error), 2);
  }
  let batches;
  try {
    const text = decodeBetsFile(bytes);
    const bets = readBets(text, opts.format ?? detectFormat(opts.file, text), version);
    batches = toBatches(opts.date ? redatedBets(bets, opts.date) : bets, opts.batchSize);
  } catch (error) {
    if (error instanceof BetsFileError) return fail(`${opts.file === '-' ? 'standard input' : opts.file}: ${error.message}`, 2);
    throw error;
  }
  const total = batches.reduce((n, b) => n + b.bets.length, 0);
  const bar = startProgress(total, process.stderr);
  const summary = await uploadBatches(batches, {
    apiUrl: opts.apiUrl, authUrl: opts.authUrl, clientId: opts.clientId, clientSecret: opts.clientSecret, version,
    concurrency: opts.concurrency, policy: { retries: opts.retries, timeoutMs: opts.timeout * 1000 },
    onProgress: (done) => bar.update(done),
  }).finally(() => bar.stop());
  emit(summary);
  process.exitCode = summary.rejected.length || summary.error ? 1 : 0;
}

/** Standard input as bytes: decoded (strictly) with a file's rules, never here. */
async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function registerUploadCommand(program: Command): void {
  program
    .command('upload')
    .description('Upload a bets file (JSON, NDJSON or CSV; every bet with meeting_id and race_number) race by race, ' +
      `at most ${MAX_BATCH} bets per request. Prints {"batches", "bets", "created", "updated", "unchanged", "rejected", "warnings", "retries", "tokens"}; ` +
      'exit 0 if every batch was accepted, 1 if any was rejected or failed, 2 on bad arguments or file (docs/upload-client.md)')
    .requiredOption('--file <path>', 'bets file: .json, .ndjson/.jsonl or .csv ("-" reads stdin)')
    .requiredOption('--api-url <url>', 'base URL of the upload interface ({api_url}; /public/uploadRaceV2 is appended)')
    .requiredOption('--auth-url <url>', 'token endpoint: used as is when its path ends in /token, else /oauth/token is appended')
    .addOption(new Option('--client-id <id>', 'client id').env('WAGERLINE_CLIENT_ID').makeOptionMandatory())
    .addOption(new Option('--client-secret <secret>', 'client secret (prefer the environment variable: arguments show in ps)')
      .env('WAGERLINE_CLIENT_SECRET').makeOptionMandatory())
    .option('--v1', 'use /public/uploadRace (integer bet ids) instead of /public/uploadRaceV2')
    .option('--date <day>', 'move the bets\' day to this one ("today" in UTC, or YYYY-MM-DD): every bet time moves by the same whole ' +
      'days, as meeting import --date moves the meetings (to replay a sample file today); a day less if that put a bet in the future', dateOption)
    .addOption(new Option('--format <format>', 'file format (default: from the extension, else sniffed)').choices(['json', 'ndjson', 'csv']))
    .addOption(new Option('--batch-size <n>', `bets per request, 1-${MAX_BATCH}`).argParser(intIn(1, MAX_BATCH)).default(MAX_BATCH))
    .addOption(new Option('--concurrency <n>', 'requests in flight at once, 1-16').argParser(intIn(1, 16)).default(2))
    .addOption(new Option('--retries <n>', 'retries of a batch after a network error, 5xx, 408 or 429 (never another 4xx, 413 included), 0-20').argParser(intIn(0, 20)).default(5))
    .addOption(new Option('--timeout <seconds>', 'bound on one request, 1-600').argParser(intIn(1, 600)).default(60))
    .action((opts: Opts) => run(opts).catch((error) => fail(describeError(error))));
}
