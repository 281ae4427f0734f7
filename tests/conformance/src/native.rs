//! Runs conformance cases on the native ToR: an [`Engine`] on the public
//! in-memory port, with a fixed clock epoch, in which the ToR under test is
//! native and every other ToR is external. What the tested ToR sends
//! through the OCS comes out on a peer's uplink interface, and the time it
//! leaves gives the departure slice; fabric ingress is injected as a tagged
//! frame on the peer ToR's uplink, so it crosses the real OCS. Time is
//! passed in, so every run is the same.

use crate::case::{Case, Expect, Outcome, host_ip, host_mac, host_number, uplink_number};
use crate::frame;
use lh_ctrl::schedule::Endpoint;
use lh_ctrl::{PortId, SliceId, TorId};
use swtor::engine::{Engine, EngineOptions};
use swtor::wire::{self, Shim};
use swtor::{
    Counters, DropReason, ExternalTor, FabricSpec, HostAttach, Ifindexes, MemPort, SliceClock,
    Timing,
};

/// CLOCK_MONOTONIC-like origin of the virtual time.
const EPOCH: u64 = 1_000_000_000;
/// Poll step while time runs between frames.
const STEP: u64 = 2_000;

pub fn run(case: &Case) -> Result<Vec<(String, Outcome)>, String> {
    let fab = case.fabric()?;
    let c = &fab.compiled;
    let tor = fab.tor as TorId;
    let hpt = c.config.tors.hosts_per_tor as usize;
    let (tors, s) = (c.schedule.tors(), c.schedule.slices());
    let hosts: Vec<HostAttach> = (1..=tors * hpt)
        .map(|k| HostAttach {
            ip: host_ip(k),
            mac: host_mac(k),
            tor: ((k - 1) / hpt) as TorId,
            ifname: format!("h{k}"),
        })
        .collect();
    let timing = Timing::from_model(&c.timing());
    let spec = FabricSpec {
        schedule: c.schedule.clone(),
        tables: c.tables.clone(),
        timing,
        external: ExternalTor::all_except(&c.schedule, &[tor], "lh"),
        hosts,
    };
    let ifx = Ifindexes::sequential(&spec);
    let clock = SliceClock {
        epoch: EPOCH,
        slice: timing.model.slice.0,
        slices: s as u64,
    };
    let mut e = Engine::with_ports(&spec, &ifx, MemPort::new(), clock, EngineOptions::default())
        .map_err(|e| e.to_string())?;
    let dark = timing.dark().0;

    let mut now = EPOCH;
    let mut before = e.counters();
    let mut flags: Vec<(bool, bool, Option<String>)> = Vec::new();
    let mut last_t = EPOCH;
    for (idx, f) in case.frames.iter().enumerate() {
        let slot = f.cycle * s as u64 + f.slice as u64;
        // Inside the usable window of the arrival slot, or where the case
        // puts it.
        let t = clock.start_of_slot(slot) + f.offset_us.map_or(dark + 1_000, |us| us * 1_000);
        let bytes = frame::build(f, idx as u32)?;
        if let Some(k) = host_number(&f.ingress) {
            let ifindex = e
                .host_ifindex(host_ip(k))
                .ok_or_else(|| format!("{}: not a host of {}", f.ingress, case.tor))?;
            advance(&mut e, &mut now, t)?;
            e.port_mut().inject(ifindex, t, &bytes);
        } else {
            let p =
                uplink_number(&f.ingress).ok_or_else(|| format!("bad ingress {:?}", f.ingress))?;
            let peer = c
                .schedule
                .peer(
                    (f.slice as usize % s) as SliceId,
                    Endpoint::new(tor, p as PortId),
                )
                .ok_or_else(|| format!("{}: no circuit on up{p} in slice {}", f.id, f.slice))?;
            let ifindex = e
                .uplink_ifindex(peer.tor, peer.port)
                .ok_or_else(|| "peer ToR is not external".to_string())?;
            let shim = Shim {
                kind: wire::SHIM_DEPARTURE,
                flags: 0,
                slice: f.slice,
                slot: slot as u32,
            };
            let tagged = wire::shim_insert(&bytes, &shim);
            // Sent by the peer at its window start; it arrives after its
            // serialisation and the propagation delay.
            let sent_at = clock.start_of_slot(slot);
            advance(&mut e, &mut now, sent_at)?;
            let c0 = e.counters();
            e.port_mut().inject(ifindex, sent_at, &tagged);
            advance(&mut e, &mut now, t.max(sent_at))?;
            // Until the OCS has delivered it to the tested ToR, which
            // decides it there (or swtor refused it at the peer): what that
            // decision counted (a drop, a deferral) belongs to this frame,
            // not the next one.
            let limit = now + timing.model.slice.0;
            // Deliveries to the native (tested) ToR: the OCS's, less those
            // to external ToRs.
            let to_tested = |c: &Counters| c.ocs_delivered - c.to_external;
            loop {
                let c1 = e.counters();
                let done = to_tested(&c1) > to_tested(&c0)
                    || c1.dropped.iter().sum::<u64>() > c0.dropped.iter().sum::<u64>();
                step(&mut e, &mut now, u64::MAX)?;
                if done || now >= limit {
                    break;
                }
            }
        }
        // Let the frame be taken and decided at `t`, and nothing later.
        now = now.max(t);
        e.poll(now).map_err(|e| e.to_string())?;
        while e.port().pending() > 0 {
            step(&mut e, &mut now, u64::MAX)?;
        }
        let after = e.counters();
        flags.push((
            after.rerouted > before.rerouted,
            after.deferred > before.deferred,
            first_drop(&before, &after),
        ));
        before = after;
        last_t = last_t.max(t);
    }
    // Run on for three cycles: every frame leaves, deferred ones included.
    let end = last_t + 3 * s as u64 * timing.model.slice.0 + timing.model.slice.0;
    advance(&mut e, &mut now, end)?;

    let sent = e.port_mut().take_sent();
    let mut out = Vec::new();
    for (idx, f) in case.frames.iter().enumerate() {
        let mut o = Expect {
            rerouted: flags[idx].0,
            deferred: flags[idx].1,
            ..Default::default()
        };
        let mine = sent.iter().find(|sf| {
            let p = frame::parse(&sf.data);
            if f.arp {
                p.arp_reply_mac.is_some()
            } else {
                p.index == Some(idx as u32)
            }
        });
        match mine {
            Some(sf) => {
                let p = frame::parse(&sf.data);
                if let Some((pt, pp)) = e.uplink_of_ifindex(sf.ifindex) {
                    // Delivered at transmit end + propagation: the slot it
                    // was sent in.
                    let tx_slot = clock.slot(sf.t.saturating_sub(timing.model.propagation.0 + 1));
                    let slice = (tx_slot % s as u64) as SliceId;
                    let up = (0..c.schedule.uplinks() as PortId).find(|&up| {
                        if c.schedule.is_electrical(up) {
                            up == pp
                        } else {
                            c.schedule.peer(slice, Endpoint::new(tor, up))
                                == Some(Endpoint::new(pt, pp))
                        }
                    });
                    o.out = up.map(|u| format!("up{u}"));
                    o.depart = Some(slice);
                    o.cycle = Some(tx_slot / s as u64);
                } else {
                    let k = ifx.hosts.iter().position(|&x| x == sf.ifindex);
                    o.out = k.map(|k| format!("h{}", k + 1));
                }
                o.srh = Some(p.srh);
                o.arp_reply_for = p.arp_reply_mac.and_then(|m| {
                    let k = u32::from_be_bytes([m[2], m[3], m[4], m[5]]) as usize;
                    (m[..2] == [0, 0] && k > 0).then(|| format!("h{k}"))
                });
            }
            None => o.drop = Some(flags[idx].2.clone().unwrap_or_else(|| "lost".into())),
        }
        out.push((f.id.clone(), o));
    }
    let fin = e.counters();
    if !fin.conservation_holds() {
        return Err(format!("conservation violated: {fin}"));
    }
    Ok(out)
}

fn advance(e: &mut Engine<MemPort>, now: &mut u64, to: u64) -> Result<(), String> {
    while step(e, now, to)? {}
    Ok(())
}

/// Polls once at the engine's next event ([`Engine::next_event_at`]: a
/// departure, an OCS delivery) or `STEP` on, whichever is first, if that
/// is not past `to`; false when it is. Polling at the event itself stamps
/// a frame with the time it was delivered, so a frame that fills its
/// window exactly is seen leaving in its own slot, not in the next (on a
/// fixed grid it was stamped up to a `STEP` late). (Not `poll_at`: with
/// the other ToRs external it means "as soon as you can", never later.)
fn step(e: &mut Engine<MemPort>, now: &mut u64, to: u64) -> Result<bool, String> {
    let next = match e.next_event_at() {
        Some(t) if t > *now => t.min(*now + STEP),
        _ => *now + STEP,
    };
    if next > to {
        return Ok(false);
    }
    *now = next;
    e.poll(next).map_err(|e| e.to_string())?;
    Ok(true)
}

fn first_drop(a: &Counters, b: &Counters) -> Option<String> {
    DropReason::ALL
        .iter()
        .zip(b.dropped.iter().zip(a.dropped.iter()))
        .find(|(_, (x, y))| x > y)
        .map(|(r, _)| r.name().to_string())
}
