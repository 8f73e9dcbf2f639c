/** A platform's webhook events: the list with its filter and paging, one event's delivery attempts, Redeliver. */

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type EventStatus, type Page, type WebhookEvent, type WebhookEventDetail } from './api.ts';
import { Alert, messageOf, Notice, Select, TableWrap, When } from './ui.tsx';

export const STATUS_NAMES: Record<EventStatus, string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  not_sent: 'Not sent',
};

export function Events(props: {
  manage: boolean;
  sent: number;
  status: string;
  moveTo: boolean;
  focusHeading: boolean;
}) {
  const [status, setStatus] = useState(props.status);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => setStatus(props.status), [props.status]);
  useEffect(() => {
    if (!props.moveTo) return;
    heading.current?.scrollIntoView();
    if (props.focusHeading) heading.current?.focus();
  }, [props.moveTo, props.status]);
  const [events, setEvents] = useState<WebhookEvent[]>();
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [open, setOpen] = useState<string>();

  const load = async (after?: string) => {
    setLoading(true);
    setProblem(undefined);
    try {
      const query = new URLSearchParams({ limit: '20' });
      if (status) query.set('status', status);
      if (after) query.set('starting_after', after);
      const page = await call<Page<WebhookEvent>>('GET', `/events/?${query}`);
      setEvents((known) => (after && known ? [...known, ...page.data] : page.data));
      setHasMore(page.has_more);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    setOpen(undefined);
    load();
  }, [status]);
  useEffect(() => {
    if (props.sent > 0) load();
  }, [props.sent]);

  const updated = (event: WebhookEvent) =>
    setEvents((known) => known?.map((each) => (each.event_id === event.event_id ? event : each)));

  return (
    <section class="card" aria-labelledby="events-heading">
      <h2 id="events-heading" ref={heading} tabIndex={-1}>
        Events
      </h2>
      <div class="actions">
        <Select
          id="event-status"
          label="Show"
          value={status}
          options={[['', 'All events'], ...Object.entries(STATUS_NAMES)]}
          onValue={setStatus}
        />
        <button type="button" onClick={() => load()} disabled={loading}>
          Refresh
        </button>
      </div>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {events === undefined ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : events.length === 0 ? (
        <p>No events{status ? ' with this status' : ' yet'}.</p>
      ) : (
        <EventTable
          label="Events"
          events={events}
          name={(event) => (
            <button
              type="button"
              class="link"
              aria-expanded={open === event.event_id}
              aria-controls="event-detail"
              onClick={() => setOpen(open === event.event_id ? undefined : event.event_id)}
            >
              {event.type}
            </button>
          )}
        />
      )}
      {hasMore && events ? (
        <button type="button" onClick={() => load(events[events.length - 1]?.event_id)} disabled={loading}>
          {loading ? 'Loading…' : 'Older events'}
        </button>
      ) : null}
      <div id="event-detail">
        {open ? (
          <EventDetail
            key={open}
            eventId={open}
            manage={props.manage}
            onUpdated={updated}
            onClose={() => setOpen(undefined)}
          />
        ) : null}
      </div>
    </section>
  );
}

/**
 * Events as a table: each one's type and id, when, its delivery, attempts and last answer. `name` draws the type (a
 * button that opens it, here); the payment page lists its events' deliveries with the same table.
 */
export function EventTable(props: {
  label: string;
  events: readonly WebhookEvent[];
  name?(event: WebhookEvent): ComponentChildren;
}) {
  return (
    <TableWrap label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Created</th>
            <th scope="col">Delivery</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
          </tr>
        </thead>
        <tbody>
          {props.events.map((event) => (
            <tr key={event.event_id}>
              <th scope="row">
                {props.name ? props.name(event) : event.type}
                <span class="mono hint block">{event.event_id}</span>
              </th>
              <td>
                <When at={event.created_at} />
              </td>
              <td>
                <span class={`status-${event.status}`}>{STATUS_NAMES[event.status]}</span>
                {event.next_attempt_at ? (
                  <span class="hint block">
                    next try <When at={event.next_attempt_at} />
                  </span>
                ) : null}
              </td>
              <td>{event.attempt_count}</td>
              <td>{lastAnswer(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function lastAnswer(event: Pick<WebhookEvent, 'last_status_code' | 'last_error'>): string {
  if (event.last_status_code !== null) return `HTTP ${event.last_status_code}`;
  return event.last_error ?? '—';
}

const OUTCOMES: Record<string, string> = {
  delivered: 'Delivered',
  retry: 'Failed; retried',
  failed: 'Failed; last of its round',
  disabled: 'Gone (410): endpoint disabled',
};

function EventDetail(props: {
  eventId: string;
  manage: boolean;
  onUpdated(event: WebhookEvent): void;
  onClose(): void;
}) {
  const [detail, setDetail] = useState<WebhookEventDetail>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = () =>
    call<WebhookEventDetail>('GET', `/events/${encodeURIComponent(props.eventId)}/`).then(
      (found) => setDetail(found),
      (error) => setProblem(messageOf(error)),
    );
  useEffect(() => {
    load();
  }, []);
  useEffect(() => {
    if (detail && !notice) heading.current?.focus();
  }, [detail === undefined]);

  const redeliver = async () => {
    setBusy(true);
    setProblem(undefined);
    setNotice(undefined);
    try {
      const event = await call<WebhookEvent>(
        'POST',
        `/events/${encodeURIComponent(props.eventId)}/redeliver/`,
      );
      props.onUpdated(event);
      setNotice('Sent again: a new round of attempts starts now.');
      await load();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="detail" aria-labelledby="detail-heading">
      <h3 id="detail-heading" ref={heading} tabIndex={-1}>
        {detail ? detail.type : 'Event'} <span class="mono hint">{props.eventId}</span>
      </h3>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {notice ? <Notice>{notice}</Notice> : null}
      {!detail ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : (
        <>
          <dl class="facts">
            <dt>Delivery</dt>
            <dd>{STATUS_NAMES[detail.status]}</dd>
            <dt>Next attempt</dt>
            <dd>
              <When at={detail.next_attempt_at} empty="None due" />
            </dd>
            <dt>Delivered</dt>
            <dd>
              <When at={detail.delivered_at} empty="Not yet" />
            </dd>
          </dl>
          {detail.attempts.length === 0 ? (
            <p>No attempts yet.</p>
          ) : (
            <TableWrap label="Delivery attempts">
              <table>
                <caption>Delivery attempts</caption>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">When</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Answer</th>
                    <th scope="col">Time taken</th>
                    <th scope="col">URL</th>
                  </tr>
                </thead>
                <tbody>
                  {detail.attempts.map((attempt) => (
                    <tr key={attempt.number}>
                      <td>{attempt.number}</td>
                      <td>
                        <When at={attempt.attempted_at} />
                      </td>
                      <td>{OUTCOMES[attempt.outcome] ?? attempt.outcome}</td>
                      <td>
                        {lastAnswer({ last_status_code: attempt.status_code, last_error: attempt.error })}
                      </td>
                      <td>{attempt.latency_ms} ms</td>
                      <td class="break">{attempt.url}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <div class="buttons">
            {props.manage ? (
              <button type="button" onClick={redeliver} disabled={busy}>
                {busy ? 'Sending…' : 'Redeliver'}
              </button>
            ) : null}
            <button type="button" onClick={props.onClose}>
              Close
            </button>
          </div>
        </>
      )}
    </section>
  );
}
