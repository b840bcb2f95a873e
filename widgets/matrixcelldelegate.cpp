#include "matrixcelldelegate.h"

#include "itemmodels/matrixmodel.h"
#include "pinlegend.h"
#include "statusstyle.h"

#include <QApplication>
#include <QPainter>
#include <cmath>

namespace rg {

namespace {

// Build state on top of the status: a bar along the chip's foot while queued or running,
// a small badge in its corner for the last result. A build of an older version of the recipe
// is a grey ring with clock hands: it was built once, not from what is there now.
void paintBuildState(QPainter* painter, const QRectF& rect, const QVariantMap& build,
                     const QPalette& palette)
{
    if (build.isEmpty())
        return;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const bool running = build.value(QStringLiteral("running")).toBool();
    const bool queued = build.value(QStringLiteral("queued")).toBool();
    if (running || queued) {
        const QRectF track(rect.left() + 4, rect.bottom() - 4, rect.width() - 8, 2.5);
        QColor trackColor = palette.color(QPalette::Highlight);
        trackColor.setAlpha(60);
        painter->fillRect(track, trackColor);
        const double progress = build.value(QStringLiteral("progress")).toDouble();
        if (running) {
            QRectF done = track;
            done.setWidth(track.width() * (progress >= 0 ? std::clamp(progress, 0.05, 1.0) : 0.35));
            painter->fillRect(done, palette.color(QPalette::Highlight));
        }
    }
    const auto last =
        static_cast<CellBuildState::Result>(build.value(QStringLiteral("last")).toInt());
    if (last == CellBuildState::Result::None && !running && !queued) {
        painter->restore();
        return;
    }
    const qreal d = 9;
    const QRectF badge(rect.right() - d - 3, rect.top() + 3, d, d);
    if (last == CellBuildState::Result::Outdated && !running && !queued) {
        // The neutral grey of the statuses (opaque, unlike the palette's placeholder text).
        const QColor grey = StatusStyle::color(CellStatus::Impossible, palette);
        painter->setPen(QPen(grey, 1.3));
        painter->setBrush(palette.color(QPalette::Base));
        painter->drawEllipse(badge);
        painter->setPen(QPen(grey, 1.2, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(badge.center(), badge.center() + QPointF(0, -2.6));
        painter->drawLine(badge.center(), badge.center() + QPointF(2.2, 0));
        painter->restore();
        return;
    }
    QColor color = palette.color(QPalette::Highlight);
    if (!running && !queued) {
        if (last == CellBuildState::Result::Succeeded)
            color = build.value(QStringLiteral("verificationFailed")).toBool()
                        ? StatusStyle::color(CellStatus::Redundant, palette)
                        : StatusStyle::color(CellStatus::Ok, palette);
        else if (last == CellBuildState::Result::Failed)
            color = StatusStyle::color(CellStatus::Broken, palette);
        else
            color = StatusStyle::color(CellStatus::Impossible, palette);
    }
    if (queued && !running) { // hollow: waiting its turn
        painter->setPen(QPen(color, 1.5));
        painter->setBrush(palette.color(QPalette::Base));
    } else {
        painter->setPen(QPen(palette.color(QPalette::Base), 1.2));
        painter->setBrush(color);
    }
    painter->drawEllipse(badge);
    if (!running && !queued) {
        painter->setPen(QPen(Qt::white, 1.4, Qt::SolidLine, Qt::RoundCap));
        if (last == CellBuildState::Result::Succeeded) {
            painter->drawLine(QPointF(badge.left() + 2.3, badge.center().y()),
                              QPointF(badge.center().x() - 0.5, badge.bottom() - 2.3));
            painter->drawLine(QPointF(badge.center().x() - 0.5, badge.bottom() - 2.3),
                              QPointF(badge.right() - 2, badge.top() + 2.3));
        } else {
            painter->drawLine(badge.center() + QPointF(0, -2.4), badge.center() + QPointF(0, 0.6));
            painter->drawPoint(badge.center() + QPointF(0, 2.6));
        }
    }
    painter->restore();
}

// Nix's answer agrees with the variant: a small "✓ nix" tag in the chip's bottom-left corner,
// where nothing else is drawn unless the cell has extra recipes (their tags take the foot),
// with where its output is when the chip has room ("✓ nix · needs build"). A recipe Nix shows
// wrong needs no tag: its findings make the cell broken.
void paintEvaluation(QPainter* painter, const QRectF& chip, const QVariantMap& evaluation,
                     bool hasExtras, const QStyleOptionViewItem& option)
{
    if (hasExtras ||
        evaluation.value(QStringLiteral("state")).toString() != QLatin1String("agrees"))
        return;
    painter->save();
    QFont small = option.font;
    small.setPointSizeF(std::max<qreal>(6.5, small.pointSizeF() * 0.75));
    painter->setFont(small);
    const QString output = evaluation.value(QStringLiteral("output")).toString();
    const QString where = output == QLatin1String("built")    ? QStringLiteral(" \u00b7 built")
                          : output == QLatin1String("cached") ? QStringLiteral(" \u00b7 in cache")
                          : output == QLatin1String("missing")
                              ? QStringLiteral(" \u00b7 needs build")
                              : QString();
    const QFontMetricsF metrics(small);
    const auto boxFor = [&](const QString& text) {
        return QRectF(chip.left() + 5, chip.bottom() - metrics.height() - 3,
                      metrics.horizontalAdvance(text) + 2, metrics.height());
    };
    QString tag = QStringLiteral("\u2713 nix") + where;
    QRectF box = boxFor(tag);
    if (box.right() >= chip.right() - 14) {
        tag = QStringLiteral("\u2713 nix");
        box = boxFor(tag);
    }
    if (box.right() < chip.right() - 14) {
        painter->setPen(StatusStyle::color(CellStatus::Ok, option.palette));
        painter->drawText(box, Qt::AlignLeft | Qt::AlignVCenter, tag);
    }
    painter->restore();
}

// The remote builder a build runs or ran on: its name, small, left of the build badge along the
// chip's top edge, elided to what the chip has room for; nothing for this machine.
void paintBuilder(QPainter* painter, const QRectF& chip, const QVariantMap& build,
                  const QStyleOptionViewItem& option)
{
    const QString builder = build.value(QStringLiteral("builder")).toString();
    if (builder.isEmpty())
        return;
    painter->save();
    QFont small = option.font;
    small.setPointSizeF(std::max<qreal>(6.0, small.pointSizeF() * 0.7));
    painter->setFont(small);
    const QFontMetricsF metrics(small);
    const qreal room = chip.width() * 0.6;
    const QString text =
        metrics.elidedText(builder.section(QLatin1Char('@'), -1), Qt::ElideMiddle, room);
    const qreal width = metrics.horizontalAdvance(text) + 6;
    const QRectF tag(chip.right() - 15 - width, chip.top() + 3, width, metrics.height());
    QColor fill = option.palette.color(QPalette::Highlight);
    fill.setAlpha(40);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(fill);
    painter->drawRoundedRect(tag, 3, 3);
    painter->setPen(option.palette.color(QPalette::Text));
    painter->drawText(tag, Qt::AlignCenter, text);
    painter->restore();
}

// Where a chip's warning sign sits: the bottom-right corner, clear of the build badge (top
// right), the build bar (along the foot) and the status icon (left).
QRectF warningMarkRect(const QRectF& chip)
{
    const qreal side = std::min<qreal>(13, chip.height() / 3);
    return {chip.right() - side - 3, chip.bottom() - side - 5, side, side};
}

// `pinColor`, when valid, stands in for the status' colour: the grid is coloured by pin, and
// the status still shows as the icon's shape.
void paintChip(QPainter* painter, const QRectF& rect, CellStatus status, bool hasRecipe,
               int warnings, const QString& text, const QStringList& extraLabels,
               const QVariantList& extraStatuses, const QStyleOptionViewItem& option,
               const QColor& pinColor = {})
{
    const QPalette& palette = option.palette;
    const QColor own = pinColor.isValid() ? pinColor : StatusStyle::color(status, palette);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QPen border(own, 1.2);
    if (status == CellStatus::Missing)
        border.setStyle(Qt::DashLine);
    // A gap is only a suggestion: dotted, lighter than missing's dashes.
    if (status == CellStatus::Gap)
        border.setStyle(Qt::DotLine);
    // An impossible pairing with nothing in it is only hatching; a recipe file for one gets
    // a solid chip, because that file is something to delete.
    if (status != CellStatus::Impossible || hasRecipe) {
        if (status == CellStatus::Impossible)
            border.setWidthF(1.8);
        painter->setPen(border);
        painter->setBrush(pinColor.isValid() ? PinLegend::fill(pinColor, palette)
                                             : StatusStyle::fill(status, palette));
        painter->drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
    }

    const bool twoLines = !extraLabels.isEmpty() && rect.height() >= 34;
    const qreal lineHeight = twoLines ? rect.height() * 0.55 : rect.height();
    const int iconSize = static_cast<int>(std::min<qreal>(16, lineHeight - 6));
    const QRectF iconRect(std::round(rect.left() + 6),
                          std::round(rect.top() + (lineHeight - iconSize) / 2), iconSize, iconSize);
    painter->drawPixmap(
        iconRect.topLeft(),
        StatusStyle::iconPixmap(status, own, iconSize, painter->device()->devicePixelRatioF()));

    QFont font = option.font;
    painter->setFont(font);
    painter->setPen(own);
    // Text and extra tags leave the warning sign's corner free.
    const qreal markRoom = warnings > 0 ? warningMarkRect(rect).width() + 2 : 0;
    const QRectF textRect(iconRect.right() + 5, rect.top(),
                          rect.right() - iconRect.right() - 8 - markRoom, lineHeight);
    const QFontMetricsF metrics(font);
    if (textRect.width() >= metrics.horizontalAdvance(QStringLiteral("ok")))
        painter->drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft,
                          metrics.elidedText(text, Qt::ElideRight, textRect.width()));

    if (!extraLabels.isEmpty()) {
        QFont small = option.font;
        small.setPointSizeF(std::max<qreal>(6.5, small.pointSizeF() * 0.8));
        painter->setFont(small);
        const QFontMetricsF smallMetrics(small);
        qreal x = rect.left() + 5;
        const qreal top = twoLines ? rect.top() + lineHeight - 1 : rect.bottom() - 12;
        const qreal height = std::min<qreal>(smallMetrics.height() + 2, rect.bottom() - top - 2);
        for (int i = 0; i < extraLabels.size(); ++i) {
            const auto extraStatus = static_cast<CellStatus>(extraStatuses.value(i).toInt());
            const QColor extraColor = StatusStyle::color(extraStatus, palette);
            const QString tag = QStringLiteral("+") + extraLabels[i];
            const qreal width = smallMetrics.horizontalAdvance(tag) + height + 4;
            if (x + width > rect.right() - 3 - markRoom) {
                painter->setPen(own);
                painter->drawText(QRectF(x, top, rect.right() - x, height), Qt::AlignVCenter,
                                  QStringLiteral("…"));
                break;
            }
            StatusStyle::paintIcon(painter, QRectF(x, top + 1, height - 2, height - 2), extraStatus,
                                   extraColor);
            painter->setPen(extraColor);
            painter->drawText(QRectF(x + height, top, width - height, height), Qt::AlignVCenter,
                              tag);
            x += width + 4;
        }
    }
    if (warnings > 0)
        StatusStyle::paintWarningMark(painter, warningMarkRect(rect), palette);
    painter->restore();
}

// By pin, a recipe file wears its pin's colour and short form; an empty cell keeps its
// status' look, having no pin to show. Invalid when the grid is not coloured by pin.
QColor pinLook(const QVariantList& pins, int slice, const QPalette& palette, QString* text)
{
    if (pins.isEmpty())
        return {};
    const QVariantMap pin = pins.value(slice).toMap();
    const int index = pin.value(QStringLiteral("index"), -1).toInt();
    *text = index < 0 ? MatrixCellDelegate::tr("no pin")
                      : pin.value(QStringLiteral("label")).toString();
    return PinLegend::color(index, palette);
}

} // namespace

void MatrixCellDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                               const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QPalette& palette = opt.palette;
    const QRect rect = opt.rect;
    const bool selected = opt.state & QStyle::State_Selected;
    const bool matches = index.data(MatrixModel::MatchesFilterRole).toBool();

    painter->save();
    painter->fillRect(rect, palette.color(QPalette::Base));
    if (selected) {
        QColor tint = palette.color(QPalette::Highlight);
        tint.setAlpha(45);
        painter->fillRect(rect, tint);
    }
    if (index.data(MatrixModel::ImpossibleRole).toBool())
        painter->fillRect(rect, StatusStyle::hatch(palette));
    if (!matches)
        painter->setOpacity(0.16);

    const QVariantList statuses = index.data(MatrixModel::StatusesRole).toList();
    const QVariantList extraLabels = index.data(MatrixModel::ExtraLabelsRole).toList();
    const QVariantList extraStatuses = index.data(MatrixModel::ExtraStatusesRole).toList();
    const QVariantList hasRecipe = index.data(MatrixModel::HasRecipeRole).toList();
    const QVariantList builds = index.data(MatrixModel::BuildStateRole).toList();
    const QVariantList warnings = index.data(MatrixModel::WarningCountsRole).toList();
    const QVariantList pins = index.data(MatrixModel::PinsRole).toList();
    const QVariantList evaluations = index.data(MatrixModel::EvaluationRole).toList();
    const int count = static_cast<int>(statuses.size());
    if (count > 0) {
        const QRectF area = QRectF(rect).adjusted(4, 4, -4, -4);
        const qreal gap = 3;
        const qreal width = (area.width() - gap * (count - 1)) / count;
        for (int s = 0; s < count; ++s) {
            const int status = statuses[s].toInt();
            const QRectF chip(area.left() + s * (width + gap), area.top(), width, area.height());
            if (status == MatrixModel::NoStatus) {
                // Nothing expected, nothing there: a quiet dot keeps the slice's place.
                painter->setPen(Qt::NoPen);
                QColor dot = palette.color(QPalette::PlaceholderText);
                dot.setAlpha(110);
                painter->setBrush(dot);
                painter->setRenderHint(QPainter::Antialiasing);
                painter->drawEllipse(chip.center(), 1.8, 1.8);
                continue;
            }
            const auto cellStatus = static_cast<CellStatus>(status);
            const bool recipe = hasRecipe.value(s).toBool();
            QString text = StatusStyle::label(cellStatus);
            const QColor pinColor = recipe ? pinLook(pins, s, palette, &text) : QColor();
            paintChip(painter, chip, cellStatus, recipe, warnings.value(s).toInt(), text,
                      extraLabels.value(s).toStringList(), extraStatuses.value(s).toList(), opt,
                      pinColor);
            paintBuildState(painter, chip, builds.value(s).toMap(), palette);
            paintBuilder(painter, chip, builds.value(s).toMap(), opt);
            paintEvaluation(painter, chip, evaluations.value(s).toMap(),
                            !extraLabels.value(s).toStringList().isEmpty(), opt);
        }
    }
    painter->setOpacity(1.0);

    if (selected) {
        painter->setPen(QPen(palette.color(QPalette::Highlight), 2.5));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(QRectF(rect).adjusted(1, 1, -1, -1));
    }
    if (opt.state & QStyle::State_HasFocus) {
        QPen focus(palette.color(QPalette::Text), 1, Qt::DotLine);
        painter->setPen(focus);
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(QRectF(rect).adjusted(2.5, 2.5, -3.5, -3.5));
    }
    painter->restore();
}

QSize MatrixCellDelegate::sizeHint(const QStyleOptionViewItem& option,
                                   const QModelIndex& index) const
{
    const int count =
        std::max<int>(1, static_cast<int>(index.data(MatrixModel::StatusesRole).toList().size()));
    const QFontMetrics metrics(option.font);
    // Room for the longest word, the icon and a warning sign beside the word.
    const int chip =
        std::max(minimumChipWidth, metrics.horizontalAdvance(QStringLiteral("unexpected")) + 46);
    return {count == 1 ? chip + 14 : count * (minimumChipWidth + 3) + 8, cellHeight};
}

} // namespace rg
