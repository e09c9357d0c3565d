import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { sessionQuery } from '../../api/queries';
import { here, loginUrl } from '../../components/return-url';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'stopped' | 'paused';

/** Reasons a `closed` event gives when the session itself has ended (libs/sessions StreamCloseReason). */
const SESSION_OVER = new Set(['revoked', 'session-ended', 'credential-refused']);

/**
 * GET /api/Stream/Telemetry while `enabled`: `onEvent` runs for every event named `event` (the grid's
 * name: CaptureQueueHealth rows, stage rollups), from the node this browser is connected to. A stream the
 * service closes because the session ended (Revoke Sessions, logout elsewhere, a password change) sends
 * the browser to the Login page; any other end is retried by the browser (EventSource), and an answer
 * that is not a stream (401) makes the shell check the session.
 */
export function useTelemetryStream(event: string | null, enabled: boolean, onEvent: () => void): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const queryClient = useQueryClient();
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  }, [onEvent]);

  useEffect(() => {
    if (!event || !enabled) return;
    const source = new EventSource('/api/Stream/Telemetry');
    source.onopen = () => setState('live');
    source.addEventListener(event, () => handler.current());
    source.addEventListener('closed', (e) => {
      let reason = '';
      try {
        const { reason: r } = JSON.parse((e as MessageEvent<string>).data) as { reason?: unknown };
        reason = typeof r === 'string' ? r : '';
      } catch {
        /* not JSON: treated as an ordinary end */
      }
      if (SESSION_OVER.has(reason)) {
        source.close();
        setState('stopped');
        window.location.assign(loginUrl(here(), true));
      }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        setState('stopped');
        void queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      } else setState('reconnecting');
    };
    return () => {
      source.close();
      // The next connection (after a pause, or for another grid) starts from the beginning.
      setState('connecting');
    };
  }, [event, enabled, queryClient]);

  return !event ? 'stopped' : enabled ? state : 'paused';
}
