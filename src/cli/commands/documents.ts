import type { Command } from 'commander';
import { positiveInt } from '../option-parsers.ts';
import { safe } from '../output.ts';

/** `rentpay documents ...`: server commands on the stored documents (configuration from the environment). */
export function registerDocumentCommands(program: Command): void {
  const documents = program
    .command('documents')
    .description(
      'Stored documents: maintenance on the database (reads its configuration from the environment)',
    );

  documents
    .command('reencrypt')
    .description(
      'Re-encrypt every stored document file under DOCUMENT_ENCRYPTION_KEY (after a key rotation), reading old ' +
        'files with DOCUMENT_ENCRYPTION_PREVIOUS_KEYS; stop it any time and run it again to finish',
    )
    .option('--batch-size <files>', 'files per transaction', positiveInt, 100)
    .action(async (options: { batchSize: number }) => {
      // Loaded here, not at the top: `rentpay --help` and the operator commands do not need the database.
      const [{ ConfigError, loadConfig }, { openDatabase }, { documentCipherFor }, reencrypt] =
        await Promise.all([
          import('../../platform/config/config.ts'),
          import('../../platform/db/db.ts'),
          import('../../documents/keys.ts'),
          import('../../documents/reencrypt.ts'),
        ]);
      const cfg = loadConfig(process.env);
      if (!cfg.documentEncryptionKey) {
        // In sandbox a missing key would mean a key of this machine's DATA_DIR, which the serving nodes may not have.
        throw new ConfigError(
          'DOCUMENT_ENCRYPTION_KEY',
          'must be set: documents reencrypt moves every stored file to that key (the one every node runs with)',
        );
      }
      const cipher = documentCipherFor(cfg);
      const current = cipher.current.id;
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const err = (line: string) => process.stderr.write(`rentpay: ${line}\n`);

      let signal: string | undefined;
      const stop = (received: string) => {
        if (signal) process.exit(1);
        signal = received;
        err(`${received} received, stopping after the batch in hand...`);
      };
      const onSigint = () => stop('SIGINT');
      const onSigterm = () => stop('SIGTERM');
      process.on('SIGINT', onSigint);
      process.on('SIGTERM', onSigterm);

      const db = await openDatabase({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
      try {
        const others = (await reencrypt.documentFilesByKey(db)).filter((row) => row.keyId !== current);
        if (others.length === 0) {
          out(`Every document file is under the current key (${current}); nothing to re-encrypt.`);
          return;
        }
        const known = new Set(cipher.keyIds);
        out(
          `Re-encrypting to the current key (${current}), ${options.batchSize} file(s) per transaction. ` +
            'Files under other keys:',
        );
        for (const row of others) {
          out(
            `  key ${row.keyId}: ${row.files}${known.has(row.keyId) ? '' : ' (not configured: left as they are)'}`,
          );
        }
        const result = await reencrypt.reencryptDocuments(db, cipher, {
          batchSize: options.batchSize,
          shouldStop: () => signal !== undefined,
          onBatch: ({ reencrypted, total }) => out(`  ${reencrypted} of ${total} re-encrypted`),
        });
        if (result.reencrypted > 0) {
          const [{ recordAudit, OPERATOR_SCOPE }, { systemClock }, os] = await Promise.all([
            import('../../audit/log.ts'),
            import('../../platform/clock/clock.ts'),
            import('node:os'),
          ]);
          await db.transaction((tx) =>
            recordAudit(
              tx,
              systemClock,
              { kind: 'cli', osUser: os.userInfo().username },
              {
                scope: OPERATOR_SCOPE,
                action: 'document_files.reencrypt',
                target: { type: 'document_key', id: current },
                after: { reencrypted: result.reencrypted, stopped: result.stopped },
              },
            ),
          );
        }
        const leftTotal = result.left.reduce((sum, row) => sum + row.files, 0);
        out(`Re-encrypted ${result.reencrypted} document file(s); ${leftTotal} left under other keys.`);
        if (result.stopped) {
          err(`stopped by ${signal}: run rentpay documents reencrypt again to finish.`);
          process.exitCode = 1;
          return;
        }
        for (const file of result.unreadable) {
          err(
            safe`document file ${file.storageKey} under key ${file.keyId} does not decrypt (${file.error}); left as it is.`,
          );
          process.exitCode = 1;
        }
        for (const row of result.left.filter((row) => row.known)) {
          const busy = row.files - result.unreadable.filter((file) => file.keyId === row.keyId).length;
          if (busy > 0) {
            err(
              `${busy} document file(s) under key ${row.keyId} were locked by another process: run rentpay ` +
                'documents reencrypt again.',
            );
            process.exitCode = 1;
          }
        }
        for (const row of result.left.filter((row) => !row.known)) {
          err(
            `${row.files} document file(s) are under key ${row.keyId}, which this process does not have: add that ` +
              'key to DOCUMENT_ENCRYPTION_PREVIOUS_KEYS and run rentpay documents reencrypt again.',
          );
          process.exitCode ??= 2;
        }
      } finally {
        await db.close();
        process.off('SIGINT', onSigint);
        process.off('SIGTERM', onSigterm);
      }
    });
}
