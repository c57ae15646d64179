// Packet-level dumbbell for validating tcpmodels.sim (see ns3_dumbbell.py for how to build and run it).
//
// N senders, each on its own access link (rate max(10 C / N, 1 Mbit/s) unless --accessRate, one-way
// delay uniform on [0, spread * rtt / 2]), router A, bottleneck A -> B (rate C, one-way delay
// rtt (1 - spread / 2) / 2), router B, one receiver node on a fast zero-delay link.  Propagation RTTs
// are uniform on rtt [1 - spread / 2, 1 + spread / 2].  NewReno + SACK (PRR recovery, ns-3's
// default), delayed ACKs (2 segments, 200 ms), RTO = max(1 s, SRTT + max(0.5 s, 4 RTTVAR)),
// initial window 1, 64 KB window (no window scaling; --rwnd above it turns scaling on), no timestamps,
// no limited transmit.
// The bottleneck queue disc is a FIFO (drop-tail, --limit packets), RED or CoDel; the bottleneck device's
// own transmit queue holds 1 packet, so the queue disc holds the backlog.
// Prints one JSON object with the statistics over [warmup, duration].

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

// RED's average queue is private in ns-3; it is read (never written) for the diagnosis column red_avg.
#define private public
#include "ns3/codel-queue-disc.h"
#include "ns3/red-queue-disc.h"
#undef private

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <vector>

using namespace ns3;

namespace
{
double g_warmup = 20.0;
uint32_t g_segSize = 536;
uint32_t g_rwnd = 65535;  // the receive window caps the send window: cwnd is counted up to it
std::vector<double> g_cwndInt;     // integral of cwnd [segments * s] over the window
std::vector<double> g_cwndLast;    // last cwnd [segments]
std::vector<double> g_cwndT;       // time of last change
std::vector<uint64_t> g_txData;    // data segments sent (retransmissions included)
std::vector<uint64_t> g_rto;       // RTO expiries
std::vector<uint64_t> g_rtoFirst;  // ... of them, first expiry (not a back-off)
std::vector<uint64_t> g_drops;     // bottleneck drops per flow
std::vector<uint64_t> g_marks;     // ECN marks per flow
std::vector<uint64_t> g_recov;     // entries into fast recovery
std::vector<int> g_state;          // congestion state
std::vector<double> g_stateT;      // when it was entered
std::vector<double> g_lossTime;    // time in CA_LOSS within the window
uint64_t g_rtoFrom[6] = {0, 0, 0, 0, 0, 0};  // RTOs by the state they struck in
std::vector<uint64_t> g_rtoSmallWnd;  // RTOs (first expiry) with ssthresh-input flight <= 4 segments... cwnd <= 4
std::map<uint32_t, int> g_addrFlow;
// Diagnosis (--rtrace): each fast recovery's entry and exit, the window, pipe and data sent in it.
std::ofstream g_rtrace;

struct Recovery
{
    double ssth = 0;     // last ssthresh [segments]
    double pipe = 0;     // last BytesInFlight [segments]
    double t = 0;        // entry time of the current recovery
    double cwnd = 0;     // cwnd at entry (before the reduction)
    double pipeIn = 0;   // BytesInFlight at entry
    uint64_t sent = 0;   // data segments sent since entry
};

std::vector<Recovery> g_rec;  // per flow (empty without --rtrace)

bool
Measuring()
{
    return Simulator::Now().GetSeconds() >= g_warmup;
}

int
FlowOf(Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return -1;
    }
    auto it = g_addrFlow.find(ip->GetHeader().GetSource().Get());
    return it == g_addrFlow.end() ? -1 : it->second;
}

// Diagnosis (--dtrace): every drop at the bottleneck while measuring: its flow, sequence number,
// whether it was sent before (a retransmission), the flow's window [segments] and congestion state.
std::ofstream g_dtrace;
std::ofstream g_txtrace;  // (--txtrace, --txflow) every data segment flow g_txFlow sends while measuring
int g_txFlow = -1;
std::vector<uint32_t> g_highSeq;  // per flow: the end of the highest data segment sent so far
std::vector<std::set<uint32_t>> g_resent;  // per flow: the sequence numbers sent more than once

void
OnDrop(Ptr<const QueueDiscItem> item)
{
    int f = FlowOf(item);
    if (f >= 0 && Measuring())
    {
        g_drops[f]++;
        if (g_dtrace.is_open())
        {
            TcpHeader tcp;
            item->GetPacket()->PeekHeader(tcp);
            uint32_t seq = tcp.GetSequenceNumber().GetValue();
            char buf[128];
            std::snprintf(buf, sizeof buf, "%.6f,%d,%u,%d,%.3f,%d\n", Simulator::Now().GetSeconds(), f, seq,
                          int(g_resent[f].count(seq) > 0), g_cwndLast[f], int(g_state[f]));
            g_dtrace << buf;
        }
    }
}

void
OnMark(Ptr<const QueueDiscItem> item, const char*)
{
    int f = FlowOf(item);
    if (f >= 0 && Measuring())
    {
        g_marks[f]++;
    }
}

// Diagnosis (--dtrace): window growth [segments] while open or in disorder, in slow start and in
// congestion avoidance, and flow-time [s] in each congestion state, summed over flows while measuring.
double g_growSS = 0, g_growCA = 0;
double g_stateTime[5] = {0, 0, 0, 0, 0};
double g_cwndHist[64] = {0};  // flow-time [s] at each whole window [segments] while open or in disorder

void
CwndChange(int f, uint32_t before, uint32_t now)
{
    double t = Simulator::Now().GetSeconds();
    if (g_dtrace.is_open() && t > g_warmup && now > before && g_state[f] <= TcpSocketState::CA_DISORDER)
    {
        double grow = double(std::min(now, g_rwnd)) - double(std::min(before, g_rwnd));
        (before < g_rec[f].ssth * g_segSize ? g_growSS : g_growCA) += grow / g_segSize;
    }
    if (t > g_warmup)
    {
        g_cwndInt[f] += g_cwndLast[f] * (t - std::max(g_cwndT[f], g_warmup));
        if (g_dtrace.is_open() && g_state[f] <= TcpSocketState::CA_DISORDER)
        {
            g_cwndHist[std::min(63, int(g_cwndLast[f]))] += t - std::max(g_cwndT[f], g_warmup);
        }
    }
    g_cwndLast[f] = double(std::min(now, g_rwnd)) / g_segSize;
    g_cwndT[f] = t;
}

void
CongStateChange(int f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    double t = Simulator::Now().GetSeconds();
    if (g_state[f] == TcpSocketState::CA_LOSS && t > g_warmup)
    {
        g_lossTime[f] += t - std::max(g_stateT[f], g_warmup);
    }
    if (t > g_warmup)
    {
        g_stateTime[g_state[f]] += t - std::max(g_stateT[f], g_warmup);
    }
    if (now == TcpSocketState::CA_RECOVERY && g_state[f] != TcpSocketState::CA_RECOVERY && Measuring())
    {
        g_recov[f]++;
    }
    if (g_rtrace.is_open())
    {
        if (now == TcpSocketState::CA_RECOVERY && g_state[f] != TcpSocketState::CA_RECOVERY)
        {
            g_rec[f].t = t;
            g_rec[f].cwnd = g_cwndLast[f];
            g_rec[f].pipeIn = g_rec[f].pipe;
            g_rec[f].sent = 0;
        }
        else if (g_state[f] == TcpSocketState::CA_RECOVERY && now != TcpSocketState::CA_RECOVERY && Measuring())
        {
            const Recovery& r = g_rec[f];
            g_rtrace << f << "," << r.t << "," << t << "," << int(now) << "," << r.cwnd << "," << r.pipeIn << ","
                     << r.ssth << "," << g_cwndLast[f] << "," << r.sent << "\n";
        }
    }
    if (now != g_state[f])
    {
        g_state[f] = now;
        g_stateT[f] = t;
    }
}

void
SsthChange(int f, uint32_t, uint32_t now)
{
    g_rec[f].ssth = double(now) / g_segSize;
}

void
PipeChange(int f, uint32_t, uint32_t now)
{
    g_rec[f].pipe = double(now) / g_segSize;
}

void
TxTrace(int f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0 && !g_highSeq.empty())
    {
        uint32_t seq = h.GetSequenceNumber().GetValue();
        if (seq + p->GetSize() <= g_highSeq[f])
        {
            g_resent[f].insert(seq);
        }
        g_highSeq[f] = std::max(g_highSeq[f], seq + p->GetSize());
    }
    if (p->GetSize() > 0 && Measuring())
    {
        g_txData[f]++;
        if (g_txtrace.is_open() && f == g_txFlow)
        {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%.6f,%u,%.3f,%d\n", Simulator::Now().GetSeconds(),
                          h.GetSequenceNumber().GetValue(), g_cwndLast[f], int(g_state[f]));
            g_txtrace << buf;
        }
    }
    if (p->GetSize() > 0 && g_state[f] == TcpSocketState::CA_RECOVERY && !g_rec.empty())
    {
        g_rec[f].sent++;
    }
}

uint64_t g_bottleneckBytes = 0;

void
PhyTxEnd(Ptr<const Packet> p)
{
    if (Measuring())
    {
        g_bottleneckBytes += p->GetSize();
    }
}
} // namespace

// NewReno that counts its retransmission time-outs (ns-3 calls CwndEvent(CA_EVENT_LOSS) on every
// expiry of the retransmission timer, back-offs included).
class CountingNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CountingNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<CountingNewReno>();
        return tid;
    }

    CountingNewReno() = default;

    CountingNewReno(const CountingNewReno& sock)
        : TcpNewReno(sock),
          m_flow(sock.m_flow)
    {
    }

    std::string GetName() const override
    {
        return "CountingNewReno";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<CountingNewReno>(this);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_LOSS && m_flow >= 0 && Measuring())
        {
            g_rto[m_flow]++;
            int st = tcb->m_congState.Get();
            g_rtoFrom[st]++;
            if (st != TcpSocketState::CA_LOSS)
            {
                g_rtoFirst[m_flow]++;
                if (tcb->m_cWnd.Get() <= 4 * tcb->m_segmentSize)
                {
                    g_rtoSmallWnd[m_flow]++;
                }
            }
        }
        TcpNewReno::CwndEvent(tcb, event);
    }

    int m_flow = -1;
};

NS_OBJECT_ENSURE_REGISTERED(CountingNewReno);

namespace
{
std::vector<Ptr<BulkSendApplication>> g_apps;
std::vector<Ptr<PacketSink>> g_sinks;
std::vector<uint64_t> g_rxAtWarmup;

void
Hook(int f)
{
    Ptr<Socket> s = g_apps[f]->GetSocket();
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
    NS_ABORT_MSG_IF(!tcp, "no TCP socket");
    PointerValue pv;
    tcp->GetAttribute("CongestionOps", pv);
    Ptr<CountingNewReno> cc = DynamicCast<CountingNewReno>(pv.GetObject());
    NS_ABORT_MSG_IF(!cc, "congestion ops is not CountingNewReno");
    cc->m_flow = f;
    tcp->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChange, f));
    tcp->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChange, f));
    tcp->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxTrace, f));
    if (!g_rec.empty())
    {
        tcp->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&SsthChange, f));
        tcp->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&PipeChange, f));
    }
    g_cwndLast[f] = 1.0;
    g_cwndT[f] = Simulator::Now().GetSeconds();
}

Ptr<QueueDisc> g_bq;
Ptr<Queue<Packet>> g_devq;
double g_qSum = 0;
uint64_t g_qN = 0;
double g_qdSum = 0;
Ptr<RedQueueDisc> g_red;
double g_redAvgSum = 0;
std::vector<double> g_redSamples;  // RED's average every 20 ms
std::vector<double> g_qSamples;  // every 20 ms (for std/percentiles)
std::ofstream g_qtrace;
// Diagnosis (--atrace): every arrival at the bottleneck queue disc while measuring: its flow, the queue disc's
// packets before it, the device queue's, RED's average after its update, and the outcome
// (0 queued, 1 early drop, 2 forced drop, 3 other drop).
std::ofstream g_atrace;

void
ArrivalLog(int flow, uint32_t queued, int outcome)
{
    if (g_atrace.is_open() && Measuring())
    {
        char buf[112];
        std::snprintf(buf, sizeof buf, "%.6f,%d,%u,%u,%.4f,%d\n", Simulator::Now().GetSeconds(), flow, queued,
                      g_devq->GetNPackets(), g_red ? g_red->m_qAvg : 0.0, outcome);
        g_atrace << buf;
    }
}

void
OnEnqueue(Ptr<const QueueDiscItem> item)
{
    ArrivalLog(FlowOf(item), g_bq->GetNPackets() - 1, 0);
}

void
OnDropBefore(Ptr<const QueueDiscItem> item, const char* reason)
{
    std::string r(reason);
    int outcome = r == RedQueueDisc::UNFORCED_DROP ? 1 : r == RedQueueDisc::FORCED_DROP ? 2 : 3;
    ArrivalLog(FlowOf(item), g_bq->GetNPackets(), outcome);
}

void
SampleQueue(double period)
{
    double q = g_bq->GetNPackets() + g_devq->GetNPackets();
    if (Measuring())
    {
        g_qSum += q;
        g_qdSum += g_bq->GetNPackets();
        if (g_red)
        {
            g_redAvgSum += g_red->m_qAvg;
        }
        g_qN++;
        if (g_qN % 20 == 0)
        {
            g_qSamples.push_back(q);
            if (g_red)
            {
                g_redSamples.push_back(g_red->m_qAvg);
            }
        }
        if (g_qtrace.is_open() && g_qN % 100 == 0)
        {
            g_qtrace << Simulator::Now().GetSeconds() << "," << q << "\n";
        }
    }
    Simulator::Schedule(Seconds(period), &SampleQueue, period);
}

QueueDisc::Stats g_statsWarm;

double
ReasonCount(const QueueDisc::Stats& end, const QueueDisc::Stats& start, const char* reason)
{
    auto get = [&](const QueueDisc::Stats& x) {
        auto it = x.nDroppedPacketsBeforeEnqueue.find(reason);
        return it == x.nDroppedPacketsBeforeEnqueue.end() ? 0.0 : double(it->second);
    };
    return get(end) - get(start);
}

void
AtWarmup()
{
    g_statsWarm = g_bq->GetStats();
    for (size_t f = 0; f < g_sinks.size(); f++)
    {
        g_rxAtWarmup[f] = g_sinks[f]->GetTotalRx();
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 10;
    double bw = 10e6;
    double rtt = 0.01;
    double spread = 0.4;
    uint32_t pkt = 576;
    std::string queue = "red";
    uint32_t limit = 0;  // 0: 4 max_th for RED
    double minTh = 5, maxTh = 500, maxP = 0.02, qw = 0.002;
    double target = 0.005, interval = 0.1;  // CoDel (RFC 8289 defaults)
    bool gentle = false, ecn = false, wait = false;
    double duration = 200, warmup = 20, startSpread = 10;
    uint32_t seed = 1;
    double accessRate = 0;  // 0: max(10 C / N, 1 Mbit/s)
    uint32_t rwnd = 65535;
    uint32_t dataRetries = 100;
    std::string recovery = "prr";
    bool pacing = false;
    uint32_t delAck = 2;
    std::string qtrace, flowFile, atrace, rtrace, dtrace, txtrace;

    CommandLine cmd;
    cmd.AddValue("n", "flows", n);
    cmd.AddValue("bw", "bottleneck rate [bit/s]", bw);
    cmd.AddValue("rtt", "mean propagation RTT [s]", rtt);
    cmd.AddValue("spread", "relative width of the RTT spread", spread);
    cmd.AddValue("pkt", "IP packet size [bytes] (segment = pkt - 40)", pkt);
    cmd.AddValue("queue", "droptail, red or codel", queue);
    cmd.AddValue("limit", "queue disc limit [packets] (RED: 0 = 4 max_th)", limit);
    cmd.AddValue("minTh", "RED min_th", minTh);
    cmd.AddValue("maxTh", "RED max_th", maxTh);
    cmd.AddValue("maxP", "RED max_p", maxP);
    cmd.AddValue("qw", "RED EWMA weight", qw);
    cmd.AddValue("target", "CoDel target [s]", target);
    cmd.AddValue("interval", "CoDel interval [s]", interval);
    cmd.AddValue("gentle", "RED gentle", gentle);
    cmd.AddValue("ecn", "RED or CoDel marks and TCP negotiates ECN", ecn);
    cmd.AddValue("wait", "RED Wait (ns-3 default spacing)", wait);
    cmd.AddValue("duration", "simulated time [s]", duration);
    cmd.AddValue("warmup", "statistics from [s]", warmup);
    cmd.AddValue("startSpread", "flows start uniformly over [0, this] [s]", startSpread);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("accessRate", "access link rate [bit/s] (0: max(10 C/N, 1 Mbit/s))", accessRate);
    cmd.AddValue("rwnd", "receive buffer = largest window [bytes]", rwnd);
    cmd.AddValue("dataRetries", "TcpSocket::DataRetries", dataRetries);
    cmd.AddValue("recovery", "prr or classic", recovery);
    cmd.AddValue("delAck", "TcpSocket::DelAckCount (diagnosis; the references use 2)", delAck);
    cmd.AddValue("pacing", "TCP pacing (diagnosis only; the references' senders do not pace)", pacing);
    cmd.AddValue("qtrace", "file for the queue every 0.1 s", qtrace);
    cmd.AddValue("flowFile", "file for per-flow statistics", flowFile);
    cmd.AddValue("atrace", "file for every arrival at the bottleneck (diagnosis)", atrace);
    cmd.AddValue("rtrace", "file for every fast recovery (diagnosis)", rtrace);
    cmd.AddValue("dtrace", "file for every drop at the bottleneck (diagnosis)", dtrace);
    cmd.AddValue("txtrace", "file for every data segment one flow sends (diagnosis)", txtrace);
    cmd.AddValue("txflow", "the flow --txtrace follows", g_txFlow);
    cmd.Parse(argc, argv);

    g_warmup = warmup;
    g_segSize = pkt - 40;
    g_rwnd = rwnd;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    if (accessRate <= 0)
    {
        accessRate = std::max(10 * bw / n, 1e6);
    }
    if (queue == "red" && limit == 0)
    {
        limit = uint32_t(std::ceil(4 * maxTh));
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(CountingNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_segSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    // A window above 64 KB needs window scaling and a send buffer that holds it (few fast flows).
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(std::max(1u << 20, 2 * rwnd)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwnd));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(dataRetries));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(rwnd > 65535));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(500)));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(pacing));
    if (ecn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    NodeContainer senders;
    senders.Create(n);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer receiver;
    receiver.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    double bottleneckDelay = rtt * (1 - spread / 2) / 2;
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(bw))));
    bottleneck.SetChannelAttribute("Delay", TimeValue(Seconds(bottleneckDelay)));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer bdev = bottleneck.Install(routers.Get(0), routers.Get(1));

    // The queue discs are installed before the addresses, so no default queue disc takes their place.
    TrafficControlHelper big;
    big.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));
    TrafficControlHelper tch;
    if (queue == "droptail")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(std::to_string(limit) + "p"));
    }
    else if (queue == "codel")
    {
        // ns-3's CoDel is Linux's (its control law's 1/sqrt(count) by Newton steps); MinBytes stays 1500.
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", StringValue(std::to_string(limit) + "p"),
                             "Target", TimeValue(Seconds(target)),
                             "Interval", TimeValue(Seconds(interval)),
                             "UseEcn", BooleanValue(ecn));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "LInterm", DoubleValue(1.0 / maxP),
                             "QW", DoubleValue(qw),
                             "MeanPktSize", UintegerValue(pkt),
                             "Gentle", BooleanValue(gentle),
                             "Wait", BooleanValue(wait),
                             "UseEcn", BooleanValue(ecn),
                             "UseHardDrop", BooleanValue(true),
                             "LinkBandwidth", DataRateValue(DataRate(uint64_t(bw))),
                             "LinkDelay", TimeValue(Seconds(bottleneckDelay)),
                             "MaxSize", StringValue(std::to_string(limit) + "p"));
    }
    QueueDiscContainer bqd = tch.Install(bdev.Get(0));
    big.Install(bdev.Get(1));
    g_bq = bqd.Get(0);
    g_red = DynamicCast<RedQueueDisc>(g_bq);
    g_devq = DynamicCast<PointToPointNetDevice>(bdev.Get(0))->GetQueue();

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bdev);
    addr.NewNetwork();

    PointToPointHelper fast;
    fast.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(std::max(100 * bw, 1e10)))));
    fast.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    NetDeviceContainer rdev = fast.Install(routers.Get(1), receiver.Get(0));
    big.Install(rdev);
    Ipv4InterfaceContainer rif = addr.Assign(rdev);
    addr.NewNetwork();
    Ipv4Address sinkAddr = rif.GetAddress(1);

    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    std::vector<double> accessDelay(n);
    for (uint32_t i = 0; i < n; i++)
    {
        accessDelay[i] = u->GetValue(0, spread * rtt / 2);
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(accessRate))));
        access.SetChannelAttribute("Delay", TimeValue(Seconds(accessDelay[i])));
        NetDeviceContainer d = access.Install(senders.Get(i), routers.Get(0));
        big.Install(d);
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        addr.NewNetwork();
        g_addrFlow[ifc.GetAddress(0).Get()] = i;
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_cwndInt.assign(n, 0);
    g_cwndLast.assign(n, 1);
    g_cwndT.assign(n, 0);
    g_txData.assign(n, 0);
    g_rto.assign(n, 0);
    g_rtoFirst.assign(n, 0);
    g_rtoSmallWnd.assign(n, 0);
    g_drops.assign(n, 0);
    g_marks.assign(n, 0);
    g_recov.assign(n, 0);
    g_state.assign(n, TcpSocketState::CA_OPEN);
    g_stateT.assign(n, 0);
    g_lossTime.assign(n, 0);
    g_rxAtWarmup.assign(n, 0);
    if (!txtrace.empty())
    {
        g_txtrace.open(txtrace);
        g_txtrace << "time_s,seq,cwnd,state\n";
    }
    if (!dtrace.empty())
    {
        g_dtrace.open(dtrace);
        g_dtrace << "time_s,flow,seq,retransmission,cwnd,state\n";
        g_highSeq.assign(n, 0);
        g_resent.assign(n, std::set<uint32_t>());
        g_rec.assign(n, Recovery());  // (ssthresh: slow start or congestion avoidance)
    }
    if (!rtrace.empty())
    {
        g_rtrace.open(rtrace);
        g_rtrace << "flow,t_enter,t_exit,state_exit,cwnd_enter,pipe_enter,ssthresh,cwnd_exit,sent\n";
        g_rec.assign(n, Recovery());
    }

    for (uint32_t i = 0; i < n; i++)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receiver.Get(0));
        sa.Start(Seconds(0));
        g_sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr, port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(g_segSize));
        ApplicationContainer ca = src.Install(senders.Get(i));
        double start = u->GetValue(0, startSpread);
        ca.Start(Seconds(start));
        g_apps.push_back(DynamicCast<BulkSendApplication>(ca.Get(0)));
        Simulator::Schedule(Seconds(start) + NanoSeconds(1), &Hook, i);
    }

    g_bq->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    g_bq->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    bdev.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&PhyTxEnd));
    if (!atrace.empty())
    {
        g_atrace.open(atrace);
        g_atrace << "time_s,flow,queued,device,red_avg,outcome\n";
        g_bq->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
        g_bq->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBefore));
    }
    if (!qtrace.empty())
    {
        g_qtrace.open(qtrace);
        g_qtrace << "time_s,queue_pkts\n";
    }
    Simulator::Schedule(Seconds(warmup), &AtWarmup);
    Simulator::Schedule(Seconds(0.001), &SampleQueue, 0.001);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    // Close the integrals.
    double T = duration - warmup;
    for (uint32_t f = 0; f < n; f++)
    {
        CwndChange(f, 0, uint32_t(std::round(g_cwndLast[f] * g_segSize)));
        if (g_state[f] == TcpSocketState::CA_LOSS)
        {
            g_lossTime[f] += duration - std::max(g_stateT[f], warmup);
        }
    }
    QueueDisc::Stats st = g_bq->GetStats();
    double arrivals = double(st.nTotalReceivedPackets - g_statsWarm.nTotalReceivedPackets);
    double drops = double(st.nTotalDroppedPackets - g_statsWarm.nTotalDroppedPackets);
    double marks = double(st.nTotalMarkedPackets - g_statsWarm.nTotalMarkedPackets);
    uint64_t tx = std::accumulate(g_txData.begin(), g_txData.end(), uint64_t(0));
    uint64_t rtos = std::accumulate(g_rto.begin(), g_rto.end(), uint64_t(0));
    uint64_t rtosFirst = std::accumulate(g_rtoFirst.begin(), g_rtoFirst.end(), uint64_t(0));
    uint64_t rtosSmall = std::accumulate(g_rtoSmallWnd.begin(), g_rtoSmallWnd.end(), uint64_t(0));
    uint64_t recov = std::accumulate(g_recov.begin(), g_recov.end(), uint64_t(0));
    double cw = 0, lossT = 0, s1 = 0, s2 = 0;
    std::vector<double> gp(n);
    for (uint32_t f = 0; f < n; f++)
    {
        cw += g_cwndInt[f] / T;
        lossT += g_lossTime[f];
        gp[f] = double(g_sinks[f]->GetTotalRx() - g_rxAtWarmup[f]) / g_segSize / T;
        s1 += gp[f];
        s2 += gp[f] * gp[f];
    }
    std::vector<double> qs = g_qSamples;
    std::sort(qs.begin(), qs.end());
    double qmean = g_qSum / std::max<uint64_t>(g_qN, 1);
    double qvar = 0;
    size_t empty = 0;
    for (double q : qs)
    {
        qvar += (q - qmean) * (q - qmean);
        empty += q == 0;
    }
    qvar /= std::max<size_t>(qs.size(), 1);
    auto pct = [&](double p) { return qs.empty() ? 0.0 : qs[size_t(p * (qs.size() - 1))]; };
    struct
    {
        double std = 0, p5 = 0, p95 = 0;
    } rs;
    if (!g_redSamples.empty())
    {
        std::vector<double> r = g_redSamples;
        std::sort(r.begin(), r.end());
        double m = std::accumulate(r.begin(), r.end(), 0.0) / r.size();
        for (double x : r)
        {
            rs.std += (x - m) * (x - m);
        }
        rs.std = std::sqrt(rs.std / r.size());
        rs.p5 = r[size_t(0.05 * (r.size() - 1))];
        rs.p95 = r[size_t(0.95 * (r.size() - 1))];
    }

    std::printf("{\"drop_rate\": %.6g, \"mark_rate\": %.6g, \"avg_queue\": %.5g, \"avg_queue_disc\": %.5g, "
                "\"utilization\": %.5f, \"timeouts_per_packet\": %.5g, \"timeout_fraction\": %.5g, "
                "\"avg_cwnd\": %.5g, \"jain\": %.4f, \"arrivals\": %.0f, \"drops\": %.0f, \"marks\": %.0f, "
                "\"data_sent\": %lu, \"rtos\": %lu, \"rtos_first\": %lu, \"rtos_small_cwnd\": %lu, "
                "\"rto_in_open\": %lu, \"rto_in_disorder\": %lu, \"rto_in_cwr\": %lu, \"rto_in_recovery\": %lu, "
                "\"rto_in_loss\": %lu, \"recoveries\": %lu, \"queue_std\": %.4g, \"queue_p5\": %.4g, "
                "\"queue_p95\": %.4g, \"queue_frac_empty\": %.4g, \"red_avg\": %.4g, \"red_forced\": %.0f, "
                "\"red_unforced\": %.0f, \"red_avg_std\": %.4g, \"red_avg_p5\": %.4g, "
                "\"red_avg_p95\": %.4g}\n",
                (drops + marks) / std::max(arrivals, 1.0), marks / std::max(arrivals, 1.0), qmean,
                g_qdSum / std::max<uint64_t>(g_qN, 1), g_bottleneckBytes * 8.0 / (bw * T),
                double(rtos) / std::max<uint64_t>(tx, 1), lossT / (n * T), cw / n, s1 * s1 / (n * s2),
                arrivals, drops, marks, (unsigned long)tx, (unsigned long)rtos, (unsigned long)rtosFirst,
                (unsigned long)rtosSmall, (unsigned long)g_rtoFrom[0], (unsigned long)g_rtoFrom[1],
                (unsigned long)g_rtoFrom[2], (unsigned long)g_rtoFrom[3], (unsigned long)g_rtoFrom[4],
                (unsigned long)recov, std::sqrt(qvar), pct(0.05), pct(0.95),
                qs.empty() ? 0.0 : double(empty) / qs.size(), g_redAvgSum / std::max<uint64_t>(g_qN, 1),
                ReasonCount(st, g_statsWarm, RedQueueDisc::FORCED_DROP),
                ReasonCount(st, g_statsWarm, RedQueueDisc::UNFORCED_DROP), rs.std, rs.p5, rs.p95);
    if (!flowFile.empty())
    {
        std::ofstream ff(flowFile);
        ff << "flow,access_delay_s,goodput_pps,data_sent,drops,marks,rtos,rtos_first,recoveries,avg_cwnd,"
              "timeout_fraction\n";
        for (uint32_t f = 0; f < n; f++)
        {
            ff << f << "," << accessDelay[f] << "," << gp[f] << "," << g_txData[f] << "," << g_drops[f] << ","
               << g_marks[f] << "," << g_rto[f] << "," << g_rtoFirst[f] << "," << g_recov[f] << ","
               << g_cwndInt[f] / T << "," << g_lossTime[f] / T << "\n";
        }
    }
    if (g_dtrace.is_open())
    {
        std::fprintf(stderr, "growth_ss %.1f growth_ca %.1f state_time %.1f %.1f %.1f %.1f %.1f\n", g_growSS, g_growCA,
                     g_stateTime[0], g_stateTime[1], g_stateTime[2], g_stateTime[3], g_stateTime[4]);
        std::fprintf(stderr, "cwnd_hist");
        for (double h : g_cwndHist)
        {
            std::fprintf(stderr, " %.2f", h);
        }
        std::fprintf(stderr, "\n");
    }
    Simulator::Destroy();
    return 0;
}
