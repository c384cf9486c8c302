import ArgumentParser
import RelinkCore

/// One option per long-link parameter, named after it (`--apn`, `--utm-source`).
struct LinkParameterOptions: ParsableArguments {
    @Option(help: ArgumentHelp(LinkParameter.link.summary)) var link: String?
    @Option(help: ArgumentHelp(LinkParameter.apn.summary)) var apn: String?
    @Option(help: ArgumentHelp(LinkParameter.afl.summary)) var afl: String?
    @Option(help: ArgumentHelp(LinkParameter.amv.summary)) var amv: String?
    @Option(help: ArgumentHelp(LinkParameter.al.summary)) var al: String?
    @Option(help: ArgumentHelp(LinkParameter.ibi.summary)) var ibi: String?
    @Option(help: ArgumentHelp(LinkParameter.ifl.summary)) var ifl: String?
    @Option(help: ArgumentHelp(LinkParameter.ius.summary)) var ius: String?
    @Option(help: ArgumentHelp(LinkParameter.ipfl.summary)) var ipfl: String?
    @Option(help: ArgumentHelp(LinkParameter.ipbi.summary)) var ipbi: String?
    @Option(help: ArgumentHelp(LinkParameter.isi.summary)) var isi: String?
    @Option(help: ArgumentHelp(LinkParameter.imv.summary)) var imv: String?
    @Option(help: ArgumentHelp(LinkParameter.efr.summary)) var efr: String?
    @Option(help: ArgumentHelp(LinkParameter.ofl.summary)) var ofl: String?
    @Option(help: ArgumentHelp(LinkParameter.st.summary)) var st: String?
    @Option(help: ArgumentHelp(LinkParameter.sd.summary)) var sd: String?
    @Option(help: ArgumentHelp(LinkParameter.si.summary)) var si: String?
    @Option(help: ArgumentHelp(LinkParameter.utmSource.summary)) var utmSource: String?
    @Option(help: ArgumentHelp(LinkParameter.utmMedium.summary)) var utmMedium: String?
    @Option(help: ArgumentHelp(LinkParameter.utmCampaign.summary)) var utmCampaign: String?
    @Option(help: ArgumentHelp(LinkParameter.utmTerm.summary)) var utmTerm: String?
    @Option(help: ArgumentHelp(LinkParameter.utmContent.summary)) var utmContent: String?
    @Option(help: ArgumentHelp(LinkParameter.at.summary)) var at: String?
    @Option(help: ArgumentHelp(LinkParameter.ct.summary)) var ct: String?
    @Option(help: ArgumentHelp(LinkParameter.mt.summary)) var mt: String?
    @Option(help: ArgumentHelp(LinkParameter.pt.summary)) var pt: String?
    @Option(name: .customLong("d"), help: ArgumentHelp(LinkParameter.d.summary)) var d: String?

    var parameters: LinkParameters {
        let values: [LinkParameter: String?] = [
            .link: link, .apn: apn, .afl: afl, .amv: amv, .al: al, .ibi: ibi, .ifl: ifl, .ius: ius, .ipfl: ipfl,
            .ipbi: ipbi, .isi: isi, .imv: imv, .efr: efr, .ofl: ofl, .st: st, .sd: sd, .si: si,
            .utmSource: utmSource, .utmMedium: utmMedium, .utmCampaign: utmCampaign, .utmTerm: utmTerm,
            .utmContent: utmContent, .at: at, .ct: ct, .mt: mt, .pt: pt, .d: d,
        ]
        return LinkParameters(values.compactMapValues { $0 })
    }
}
