import { ageOf } from '../format.ts';
import { useLoaded, Waiting } from '../load.tsx';
import type { SectionProps } from '../Shell.tsx';
import { TableWrap, useFocusOnMount, When } from '../ui.tsx';
import type { SystemHealth } from './types.ts';
import './operator.css';

/** System health: the job queue by kind, the database, every worker's heartbeat; read again on request. */
export function Health(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<SystemHealth>('/operator/health/');
  const health = loaded.data;
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        System health
      </h1>
      <p>
        Read from the database every node shares, so any node shows the same. A due count or an age that keeps
        growing means the workers are down or behind.
      </p>
      {!health ? (
        <Waiting loaded={loaded} what="system health" />
      ) : (
        <>
          <p class="buttons">
            <span>
              Checked <When at={health.checked_at} />
            </span>
            <button type="button" class="small" onClick={loaded.reload}>
              Check again
            </button>
          </p>
          <h2>Database</h2>
          <p data-testid="database">
            {health.database.reachable ? (
              <span class="status-ok">Reachable</span>
            ) : (
              <span class="status-failed">Unreachable</span>
            )}
            {health.database.round_trip_ms === null
              ? ''
              : `: a round trip of ${health.database.round_trip_ms.toFixed(1)} ms from this node.`}
          </p>
          <h2>Job queue</h2>
          {health.queue.length === 0 ? (
            <p>No job is waiting, running or failed.</p>
          ) : (
            <TableWrap label="Job queue by kind">
              <table>
                <caption>Jobs by kind</caption>
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col" class="number">
                      Pending
                    </th>
                    <th scope="col" class="number">
                      Due now
                    </th>
                    <th scope="col" class="number">
                      Running
                    </th>
                    <th scope="col" class="number">
                      Failed
                    </th>
                    <th scope="col">Oldest due</th>
                  </tr>
                </thead>
                <tbody>
                  {health.queue.map((kind) => (
                    <tr key={kind.kind}>
                      <th scope="row" class="mono">
                        {kind.kind}
                      </th>
                      <td class="number">{kind.pending}</td>
                      <td class="number">{kind.due}</td>
                      <td class="number">{kind.running}</td>
                      <td class={kind.failed > 0 ? 'number status-failed' : 'number'}>{kind.failed}</td>
                      <td>
                        {kind.oldest_due_at ? (
                          <>
                            {ageOf(kind.oldest_due_age_seconds)} ago
                            <span class="hint block">
                              <When at={kind.oldest_due_at} />
                            </span>
                          </>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <h2>Workers</h2>
          {health.workers.length === 0 ? (
            <p>
              No job worker has a heartbeat: none is running, or none has started since the last clean stop.
            </p>
          ) : (
            <TableWrap label="Job workers">
              <table>
                <caption>Job workers by their last heartbeat, newest start first</caption>
                <thead>
                  <tr>
                    <th scope="col">Worker</th>
                    <th scope="col">State</th>
                    <th scope="col">Last heartbeat</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {health.workers.map((worker) => (
                    <tr key={worker.worker_id}>
                      <th scope="row" class="break">
                        {worker.host} <span class="hint">pid {worker.pid}</span>
                        <span class="mono hint block">{worker.worker_id}</span>
                      </th>
                      <td>
                        {worker.stale ? (
                          <span class="status-failed">
                            Stale: no heartbeat for over {ageOf(worker.stale_after_seconds)}
                          </span>
                        ) : (
                          <span class="status-ok">Beating</span>
                        )}
                      </td>
                      <td>
                        {ageOf(worker.last_beat_seconds_ago)} ago
                        <span class="hint block">
                          <When at={worker.last_beat_at} />
                        </span>
                      </td>
                      <td>
                        <When at={worker.started_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </>
  );
}
