-- Wireshark / tshark dissector for Lighthouse's own headers
-- (docs/wire-formats.md, docs/p4.md "The Lighthouse shim header"):
--
--   EtherType 0x88B5  source-route header: version, count, `count` steps
--                     (uplink port, departure slice or 0xFFFF "now"), then
--                     the original EtherType;
--   EtherType 0x88B6  shim: kind 1 departure tag (a BMv2 ToR's uplink),
--                     kind 2 rotation (swtor -> a BMv2 ToR's CPU port),
--                     kind 3 push-back (ToR -> ToR -> hosts).
--
-- Use it once:   tshark -X lua_script:tools/wireshark/lighthouse.lua -r f.pcap
-- Install it:    mkdir -p ~/.local/lib/wireshark/plugins &&
--                cp tools/wireshark/lighthouse.lua ~/.local/lib/wireshark/plugins/
--
-- Display filters: lighthouse.srh, lighthouse.srh.depart == 3,
-- lighthouse.shim.kind == 2, lighthouse.pushback.reason == 1, ...
-- The field names and values are pinned by cmd/tests/dissector.rs.

local ETH_SRH = 0x88B5
local ETH_SHIM = 0x88B6
local SRH_VERSION = 1
local DEPART_NOW = 0xFFFF

local ethertype = DissectorTable.get("ethertype")

---------------------------------------------------------------- source route
local srh = Proto("lighthouse.srh", "Lighthouse source route")
local f_ver = ProtoField.uint8("lighthouse.srh.version", "Version", base.DEC)
local f_count = ProtoField.uint8("lighthouse.srh.count", "Steps left", base.DEC)
local f_step = ProtoField.bytes("lighthouse.srh.step", "Step")
local f_port = ProtoField.uint8("lighthouse.srh.port", "Uplink", base.DEC)
local f_depart = ProtoField.uint16("lighthouse.srh.depart", "Departure slice", base.DEC,
    { [DEPART_NOW] = "now" })
local f_type = ProtoField.uint16("lighthouse.srh.type", "Type", base.HEX)
srh.fields = { f_ver, f_count, f_step, f_port, f_depart, f_type }

local e_version = ProtoExpert.new("lighthouse.srh.bad_version", "Not version 1: a ToR drops it as bad_header",
    expert.group.MALFORMED, expert.severity.ERROR)
local e_short = ProtoExpert.new("lighthouse.srh.truncated", "Truncated: a ToR drops it as bad_header",
    expert.group.MALFORMED, expert.severity.ERROR)
srh.experts = { e_version, e_short }

function srh.dissector(tvb, pinfo, tree)
    if tvb:len() < 2 then
        tree:add_proto_expert_info(e_short)
        return 0
    end
    local count = tvb(1, 1):uint()
    local len = 2 + 3 * count + 2
    local t = tree:add(srh, tvb(0, math.min(len, tvb:len())))
    local v = t:add(f_ver, tvb(0, 1))
    if tvb(0, 1):uint() ~= SRH_VERSION then
        v:add_proto_expert_info(e_version)
    end
    t:add(f_count, tvb(1, 1))
    if tvb:len() < len then
        t:add_proto_expert_info(e_short)
        return tvb:len()
    end
    local hops = {}
    for k = 0, count - 1 do
        local o = 2 + 3 * k
        local port, depart = tvb(o, 1):uint(), tvb(o + 1, 2):uint()
        local when = depart == DEPART_NOW and "now" or ("slice " .. depart)
        local s = t:add(f_step, tvb(o, 3))
        s:set_text(string.format("Step %d: uplink %d, %s", k + 1, port, when))
        s:add(f_port, tvb(o, 1))
        s:add(f_depart, tvb(o + 1, 2))
        hops[#hops + 1] = string.format("up%d@%s", port, when)
    end
    local next_type = tvb(len - 2, 2):uint()
    t:add(f_type, tvb(len - 2, 2))
    t:append_text(string.format(", %d step%s: %s", count, count == 1 and "" or "s",
        table.concat(hops, " ")))
    pinfo.cols.protocol:set("LH-SRH")
    if not ethertype:try(next_type, tvb(len):tvb(), pinfo, tree) then
        Dissector.get("data"):call(tvb(len):tvb(), pinfo, tree)
    end
    pinfo.cols.info:prepend(string.format("[route %s] ", table.concat(hops, " ")))
    return tvb:len()
end

ethertype:add(ETH_SRH, srh)

------------------------------------------------------------------------ shim
local shim = Proto("lighthouse.shim", "Lighthouse shim")
local KINDS = { [1] = "departure tag", [2] = "rotation", [3] = "push-back" }
local f_kind = ProtoField.uint8("lighthouse.shim.kind", "Kind", base.DEC, KINDS)
local f_flags = ProtoField.uint8("lighthouse.shim.flags", "Flags", base.HEX)
local f_rerouted = ProtoField.bool("lighthouse.shim.flags.rerouted", "Rerouted (took an alternate)", 8,
    nil, 0x01)
local f_deferred = ProtoField.bool("lighthouse.shim.flags.deferred", "Deferred", 8, nil, 0x02)
local f_slice = ProtoField.uint16("lighthouse.shim.slice", "Slice", base.DEC)
local f_slot = ProtoField.uint32("lighthouse.shim.slot", "Slot", base.DEC)
local f_next = ProtoField.uint16("lighthouse.shim.type", "Type", base.HEX)
local REASONS = { [1] = "slice miss", [2] = "queue full" }
local f_sender = ProtoField.uint16("lighthouse.pushback.sender_tor", "Sender ToR (pauses)", base.DEC)
local f_dst = ProtoField.uint16("lighthouse.pushback.dst_tor", "Destination ToR", base.DEC)
local f_from = ProtoField.uint16("lighthouse.pushback.from_tor", "Rejecting ToR", base.DEC)
local f_reason = ProtoField.uint8("lighthouse.pushback.reason", "Reason", base.DEC, REASONS)
shim.fields = { f_kind, f_flags, f_rerouted, f_deferred, f_slice, f_slot, f_next,
    f_sender, f_dst, f_from, f_reason }

local e_shim_short = ProtoExpert.new("lighthouse.shim.truncated", "Truncated shim",
    expert.group.MALFORMED, expert.severity.ERROR)
shim.experts = { e_shim_short }

local SHIM_LEN = 10 -- kind .. next EtherType, after the 0x88B6 itself

function shim.dissector(tvb, pinfo, tree)
    if tvb:len() < SHIM_LEN then
        tree:add_proto_expert_info(e_shim_short)
        return 0
    end
    local kind = tvb(0, 1):uint()
    local t = tree:add(shim, tvb(0, SHIM_LEN))
    t:add(f_kind, tvb(0, 1))
    local fl = t:add(f_flags, tvb(1, 1))
    fl:add(f_rerouted, tvb(1, 1))
    fl:add(f_deferred, tvb(1, 1))
    t:add(f_slice, tvb(2, 2))
    t:add(f_slot, tvb(4, 4))
    t:add(f_next, tvb(8, 2))
    local slice, slot = tvb(2, 2):uint(), tvb(4, 4):uint()
    local name = KINDS[kind] or ("kind " .. kind)
    t:append_text(string.format(", %s, slice %d, slot %d", name, slice, slot))
    pinfo.cols.protocol:set("LH-SHIM")
    pinfo.cols.info:set(string.format("Lighthouse %s: slice %d, slot %d", name, slice, slot))
    local rest = tvb(SHIM_LEN):tvb()
    if kind == 3 then
        if rest:len() < 7 then
            t:add_proto_expert_info(e_shim_short)
            return tvb:len()
        end
        local p = t:add(shim, rest(0, 7), "Push-back")
        p:set_text("Push-back")
        p:add(f_sender, rest(0, 2))
        p:add(f_dst, rest(2, 2))
        p:add(f_from, rest(4, 2))
        p:add(f_reason, rest(6, 1))
        pinfo.cols.info:set(string.format(
            "Lighthouse push-back: ToR %d's hosts pause to ToR %d until slot %d (ToR %d: %s)",
            rest(0, 2):uint(), rest(2, 2):uint(), slot, rest(4, 2):uint(),
            REASONS[rest(6, 1):uint()] or "?"))
        return tvb:len()
    end
    local next_type = tvb(8, 2):uint()
    if next_type ~= 0 and rest:len() > 0 then
        -- A departure tag's frame goes on (IPv4, or a source-route header);
        -- the info column keeps the tag in front of the inner summary.
        ethertype:try(next_type, rest, pinfo, tree)
        if kind == 1 then
            pinfo.cols.info:prepend(string.format("[depart slice %d] ", slice))
        end
    end
    return tvb:len()
end

ethertype:add(ETH_SHIM, shim)
