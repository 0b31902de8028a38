// serve, migrate and keys rotate.
import type { Command } from 'commander';
import { withRuntime } from '../run.ts';

export function registerCoreCommands(program: Command): void {
  program
    .command('serve')
    .description('Start the HTTP service (applies pending migrations first). Prints {"url", "pid"} when listening; stops gracefully ' +
      'on SIGTERM or SIGINT, within WAGERLINE_SHUTDOWN_TIMEOUT_MS (then cuts what is left and exits 1). ' +
      'Listens on HOST:PORT (127.0.0.1:8080 unless set); every setting is an environment variable (README, Configuration).')
    // Loaded here, not at the top: the HTTP app is about half of every other command's start-up.
    .action(async () => (await import('../../main.ts')).serve());

  program
    .command('migrate')
    .description('Apply pending database migrations. Prints {"applied": [...]}')
    .action(() => withRuntime(async (runtime) => ({ applied: runtime.applied })));

  program
    .command('keys')
    .description('Manage the keys that sign access tokens')
    .command('rotate')
    .description('Make a new signing key active; the old one verifies until its tokens expire. Prints {"kid": ...}')
    .action(() => withRuntime((runtime) => runtime.services.tokens.rotateKey()));
}
