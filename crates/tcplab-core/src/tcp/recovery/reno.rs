//! Reno (4.4BSD): fast retransmit on the third duplicate ACK, then fast recovery: the window
//! is inflated by one segment per further duplicate ACK and deflated to ssthresh on the first
//! ACK of new data, which ends recovery even if it acknowledges only part of the window
//! (the weakness Fall and Floyd 1996 show with several drops per window).

use super::{fast_retransmit, AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone, Default)]
pub struct Reno {
    in_recovery: bool,
}

impl LossRecovery for Reno {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if count == threshold {
            fast_retransmit(cx);
            cx.win.cwnd = cx.win.ssthresh + threshold as u64 * cx.mss;
            self.in_recovery = true;
            true
        } else {
            if count > threshold {
                cx.win.cwnd += cx.mss;
            }
            false
        }
    }

    fn on_new_ack(&mut self, cx: &mut Ctx) -> AckVerdict {
        if self.in_recovery {
            self.in_recovery = false;
            cx.win.cwnd = cx.win.cwnd.min(cx.win.ssthresh);
        }
        // 4.4BSD grows the window on this ACK too, after deflating it.
        AckVerdict::Grow
    }

    fn on_timeout(&mut self) {
        self.in_recovery = false;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::window::Window;

    fn cx<'a>(win: &'a mut Window, nxt: &'a mut u64, rtx: &'a mut Option<u64>) -> Ctx<'a> {
        Ctx {
            win,
            mss: 1000,
            snd_una: 5000,
            snd_nxt: nxt,
            snd_max: 13000,
            peer_wnd: u64::MAX,
            retransmit: rtx,
        }
    }

    #[test]
    fn third_dupack_halves_and_retransmits_then_inflates() {
        let mut r = Reno::default();
        let (mut w, mut nxt, mut rtx) = (
            Window {
                cwnd: 8000,
                ssthresh: 64000,
            },
            13000,
            None,
        );
        assert!(!r.on_dupack(&mut cx(&mut w, &mut nxt, &mut rtx), 1, 3));
        assert!(!r.on_dupack(&mut cx(&mut w, &mut nxt, &mut rtx), 2, 3));
        assert_eq!(w.cwnd, 8000);
        assert!(r.on_dupack(&mut cx(&mut w, &mut nxt, &mut rtx), 3, 3));
        assert_eq!((w.ssthresh, w.cwnd, rtx), (4000, 7000, Some(5000)));
        r.on_dupack(&mut cx(&mut w, &mut nxt, &mut rtx), 4, 3);
        assert_eq!(w.cwnd, 8000);
        assert!(r.in_recovery());
    }

    #[test]
    fn first_new_ack_deflates_and_leaves_recovery() {
        let mut r = Reno { in_recovery: true };
        let (mut w, mut nxt, mut rtx) = (
            Window {
                cwnd: 11000,
                ssthresh: 4000,
            },
            13000,
            None,
        );
        assert_eq!(
            r.on_new_ack(&mut cx(&mut w, &mut nxt, &mut rtx)),
            AckVerdict::Grow
        );
        assert_eq!(w.cwnd, 4000);
        assert!(!r.in_recovery());
    }
}
