import type { Command } from 'commander';
import { jsonOutput, safe, table } from '../output.ts';

interface TeamOptions {
  integrator?: string;
  operator?: boolean;
  json?: boolean;
}

/** `rentpay users ...`: the people who sign in to the dashboard, on the database itself (configuration from the environment). */
export function registerUserCommands(program: Command): void {
  const users = program
    .command('users')
    .description("The dashboard's people: invite, list, change roles, remove (reads the database directly)");

  const team = (command: Command) =>
    command
      .option('--integrator <id>', "a person of this integrator's team")
      .option('--operator', "a person of the operator's staff")
      .option('--json', 'print JSON instead of text');

  team(users.command('invite'))
    .description('Invite a person: prints a one-time link (valid 72 hours) to set up their sign-in')
    .requiredOption('--email <email>', 'their email address')
    .requiredOption(
      '--role <role>',
      'admin, developer, finance or support (operator staff: operator_admin or operator_support)',
    )
    .action(async (options: TeamOptions & { email: string; role: string }) => {
      const teamId = await teamOf(options);
      const { user, link, expiresAt } = await withPeople((people, actor) =>
        people.invite(actor, { team: teamId, email: options.email, role: options.role }),
      );
      if (options.json) {
        process.stdout.write(`${jsonOutput({ user, link, expires_at: expiresAt.toISOString() })}\n`);
        return;
      }
      process.stdout.write(
        safe`Invited ${user.email} as ${user.role} (${user.id}) to ${user.integrator_id ?? "the operator's staff"}.\n` +
          safe`Their one-time set-up link (valid until ${expiresAt.toISOString()}, once):\n  ${link}\n`,
      );
    });

  team(users.command('list'))
    .description("A team's people, oldest first")
    .action(async (options: TeamOptions) => {
      const teamId = await teamOf(options);
      const found = await withPeople((people, actor) => people.list(actor, teamId));
      if (options.json) {
        process.stdout.write(`${jsonOutput({ data: found })}\n`);
        return;
      }
      process.stdout.write(
        `${table(
          ['ID', 'EMAIL', 'ROLE', 'STATUS', 'CREATED'],
          found.map((u) => [u.id, u.email, u.role, u.status, u.created_at.toISOString()]),
        )}\n`,
      );
    });

  users
    .command('set-role <user_id> <role>')
    .description('Give a person another role of their team (a team always keeps an admin)')
    .option('--json', 'print JSON instead of text')
    .action(async (userId: string, role: string, options: { json?: boolean }) => {
      const user = await withPeople((people, actor) => people.setRole(actor, userId, role));
      process.stdout.write(
        options.json ? `${jsonOutput(user)}\n` : safe`${user.email} is now ${user.role}.\n`,
      );
    });

  users
    .command('remove <user_id>')
    .description('Remove a person from their team (a team always keeps an admin)')
    .option('--json', 'print JSON instead of text')
    .action(async (userId: string, options: { json?: boolean }) => {
      const user = await withPeople((people, actor) => people.remove(actor, userId));
      process.stdout.write(options.json ? `${jsonOutput(user)}\n` : safe`${user.email} is removed.\n`);
    });
}

async function teamOf(options: TeamOptions): Promise<string | null> {
  if ((options.integrator === undefined) === (options.operator === undefined)) {
    const { CliError } = await import('../operator-client.ts');
    throw new CliError('Pass --integrator <id> or --operator.');
  }
  return options.integrator ?? null;
}

/** Runs `work` with the people service on the configured database, as the CLI's user. */
async function withPeople<T>(
  work: (
    people: import('../../people/service.ts').PeopleService,
    actor: import('../../audit/actor.ts').Actor,
  ) => Promise<T>,
): Promise<T> {
  const [{ withDatabase }, { PeopleService }, { DashboardSessions }, { loadConfig }, { systemClock }, os] =
    await Promise.all([
      import('../database.ts'),
      import('../../people/service.ts'),
      import('../../people/sessions.ts'),
      import('../../platform/config/config.ts'),
      import('../../platform/clock/clock.ts'),
      import('node:os'),
    ]);
  const config = loadConfig(process.env);
  return withDatabase((db) =>
    work(new PeopleService(db, systemClock, config.publicUrl, new DashboardSessions(db, systemClock)), {
      kind: 'cli',
      osUser: os.userInfo().username,
    }),
  );
}
