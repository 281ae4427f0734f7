//! The events every page gets: one bounded queue per client, so a slow or
//! stuck client never blocks the publishers (the sampler thread, the
//! thread that runs the network's operations) and never grows memory. A
//! full queue drops its oldest event and counts it; the count goes out in
//! that client's next `tick` (`lagged`). Events are serialised once and
//! shared between the queues.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Events a client queue holds at most (the default).
pub const CLIENT_QUEUE: usize = 64;

/// One server-sent event: its name and its JSON data.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: &'static str,
    pub data: Arc<str>,
}

/// A client's queue.
#[derive(Default)]
struct Queue {
    events: VecDeque<Event>,
    /// Events dropped from this queue so far (oldest first).
    lagged: u64,
    closed: bool,
}

/// One connected page.
pub struct Client {
    q: Mutex<Queue>,
    notify: Notify,
    cap: usize,
}

impl Client {
    fn push(&self, e: Event) {
        let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
        if q.events.len() >= self.cap {
            q.events.pop_front();
            q.lagged += 1;
        }
        q.events.push_back(e);
        drop(q);
        self.notify.notify_one();
    }

    fn close(&self) {
        self.q.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.notify.notify_one();
    }

    /// The next event (a `tick` carries this client's `lagged` count);
    /// `None` once the hub is closed and the queue is empty.
    pub async fn next(&self) -> Option<Event> {
        loop {
            {
                let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(e) = q.events.pop_front() {
                    if e.name == "tick" {
                        return Some(with_lagged(e, q.lagged));
                    }
                    return Some(e);
                }
                if q.closed {
                    return None;
                }
            }
            self.notify.notified().await;
        }
    }

    /// Events waiting and events dropped, for tests and the benchmark.
    pub fn depth(&self) -> (usize, u64) {
        let q = self.q.lock().unwrap_or_else(|e| e.into_inner());
        (q.events.len(), q.lagged)
    }
}

/// A tick's data is an object: put `"lagged":N` first.
fn with_lagged(e: Event, lagged: u64) -> Event {
    let rest = e.data.strip_prefix('{').unwrap_or("}");
    let sep = if rest.starts_with('}') { "" } else { "," };
    Event {
        name: e.name,
        data: format!("{{\"lagged\":{lagged}{sep}{rest}").into(),
    }
}

#[derive(Default)]
struct Inner {
    clients: Vec<Arc<Client>>,
    /// The latest event of each replayed kind (a result per verb, links):
    /// a page opened late starts with them.
    latest: BTreeMap<String, Event>,
    closed: bool,
}

/// Publishers' side and the server's.
pub struct Hub {
    inner: Mutex<Inner>,
    cap: usize,
}

impl Hub {
    pub fn new(cap: usize) -> Hub {
        Hub {
            inner: Mutex::new(Inner::default()),
            cap: cap.max(1),
        }
    }

    /// A new client, its queue primed with the latest results and links.
    pub fn subscribe(&self) -> Arc<Client> {
        let c = Arc::new(Client {
            q: Mutex::new(Queue::default()),
            notify: Notify::new(),
            cap: self.cap,
        });
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for e in inner.latest.values() {
            c.push(e.clone());
        }
        if inner.closed {
            c.close();
        } else {
            inner.clients.push(c.clone());
        }
        c
    }

    /// A client has gone.
    pub fn unsubscribe(&self, c: &Arc<Client>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.clients.retain(|x| !Arc::ptr_eq(x, c));
    }

    /// How many pages are connected.
    pub fn clients(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clients
            .len()
    }

    /// Sends `data` as event `name` to every client; `replay`: also keep
    /// it (under that key) for clients that connect later.
    pub fn publish(&self, name: &'static str, data: String, replay: Option<&str>) {
        let e = Event {
            name,
            data: data.into(),
        };
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.closed {
            return;
        }
        if let Some(k) = replay {
            inner.latest.insert(k.to_string(), e.clone());
        }
        for c in &inner.clients {
            c.push(e.clone());
        }
    }

    /// The last event (`end`), then every client's stream ends.
    pub fn close(&self, last: Option<(&'static str, String)>) {
        if let Some((name, data)) = last {
            self.publish(name, data, None);
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.closed = true;
        for c in inner.clients.drain(..) {
            c.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(c: &Client) -> Vec<Event> {
        let mut q = c.q.lock().unwrap();
        let lagged = q.lagged;
        q.events
            .drain(..)
            .map(|e| {
                if e.name == "tick" {
                    with_lagged(e, lagged)
                } else {
                    e
                }
            })
            .collect()
    }

    #[test]
    fn a_full_queue_drops_the_oldest_and_counts_it() {
        let h = Hub::new(3);
        let c = h.subscribe();
        for i in 0..5 {
            h.publish("tick", format!("{{\"i\":{i}}}"), None);
        }
        assert_eq!(c.depth(), (3, 2));
        let got: Vec<String> = drain(&c).iter().map(|e| e.data.to_string()).collect();
        assert_eq!(
            got,
            [
                r#"{"lagged":2,"i":2}"#,
                r#"{"lagged":2,"i":3}"#,
                r#"{"lagged":2,"i":4}"#
            ]
        );
    }

    #[test]
    fn a_late_client_gets_the_latest_result_of_each_kind_only() {
        let h = Hub::new(8);
        h.publish("result", "{\"v\":1}".into(), Some("result:pingall"));
        h.publish("result", "{\"v\":2}".into(), Some("result:pingall"));
        h.publish("result", "{\"v\":3}".into(), Some("result:iperf"));
        h.publish("tick", "{}".into(), None);
        let c = h.subscribe();
        let got: Vec<String> = drain(&c).iter().map(|e| e.data.to_string()).collect();
        assert_eq!(got, ["{\"v\":3}", "{\"v\":2}"]);
        assert_eq!(h.clients(), 1);
        h.unsubscribe(&c);
        assert_eq!(h.clients(), 0);
    }

    #[test]
    fn a_page_reads_the_lagged_count_in_ticks_only() {
        let h = Hub::new(2);
        let c = h.subscribe();
        h.publish("result", "{\"v\":1}".into(), None);
        h.publish("tick", "{\"i\":1}".into(), None);
        // The queue is full: the oldest (the first result) goes.
        h.publish("result", "{\"v\":2}".into(), None);
        assert_eq!(c.depth(), (2, 1));
        let got: Vec<(&str, String)> = (0..2)
            .map(|_| {
                let e = futures::executor::block_on(c.next()).unwrap();
                (e.name, e.data.to_string())
            })
            .collect();
        assert_eq!(
            got,
            [
                ("tick", r#"{"lagged":1,"i":1}"#.to_string()),
                ("result", r#"{"v":2}"#.to_string())
            ]
        );
    }

    #[test]
    fn closing_ends_every_stream_after_the_last_event() {
        let h = Hub::new(8);
        let c = h.subscribe();
        h.close(Some(("end", "{\"ok\":true}".into())));
        h.publish("tick", "{}".into(), None);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            assert_eq!(c.next().await.unwrap().name, "end");
            assert!(c.next().await.is_none());
            // Subscribing after the end gets a closed stream.
            assert!(h.subscribe().next().await.is_none());
        });
        assert_eq!(
            with_lagged(
                Event {
                    name: "tick",
                    data: "{}".into()
                },
                0
            )
            .data
            .as_ref(),
            "{\"lagged\":0}"
        );
    }
}
