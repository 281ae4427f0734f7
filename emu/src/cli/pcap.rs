//! `pcap`: packet captures on a ToR's or a host's port
//! ([`crate::net::Network::pcap`]).

use super::Cli;
use crate::net::{NetworkError, PcapTarget};
use crate::text::view;
use std::path::Path;

impl Cli<'_> {
    /// `pcap [--readable] <node> <port> FILE | pcap stop`.
    pub(super) fn pcap(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.first() == Some(&"stop") {
            let v = self.net.stop_pcaps();
            self.show("pcap", Ok(v), view::captures_stopped);
            return;
        }
        let (mode, args) = match args.split_first() {
            Some((&"--readable", rest)) => (crate::kernel::securefs::READABLE_MODE, rest),
            _ => (crate::kernel::securefs::FILE_MODE, &args[..]),
        };
        if args.len() != 3 {
            self.say("usage: pcap [--readable] <tor|host> <port> FILE | pcap stop");
            return;
        }
        // Check the node and port first: a bad one must not create a file.
        let target: Result<PcapTarget, NetworkError> = self.net.pcap_target(args[0], args[1]);
        match target {
            Ok(_) if self.sandbox => {}
            Ok(t) => {
                let r = self.net.pcap(t, Path::new(args[2]), mode);
                self.show("pcap", r, |c| view::capture(c) + "\n");
            }
            Err(e) => self.fail("pcap", e),
        }
    }
}
